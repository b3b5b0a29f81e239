/**
 * paysandbox-mobile — a dependency-free TypeScript client with the iOS SDK's shape: collect a
 * card or bank account, tokenize it straight to the sandbox with the public web payments token,
 * and charge the returned PaymentMethod id from your backend with `POST /charge`.
 * The wire it speaks is documented for native apps in docs/mobile.md.
 * @example
 * import { CreditCard, PaymentApi, PaymentConfiguration } from "paysandbox-mobile";
 * PaymentConfiguration.shared.webPaymentsToken = "sandbox_web_payments_token";
 * const response = await new PaymentApi().tokenize(CreditCard.testCreditCard());
 */
export { PaymentApi } from "./payment-api";
export type { PaymentApiOptions, TokenizeListener, TokenizeOptions, TokenizeResponse } from "./payment-api";
export { DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, PaymentConfiguration } from "./configuration";
export type { PaymentConfigurationOptions, ResolvedConfiguration } from "./configuration";
export {
  BankAccount,
  CreditCard,
  WIRE_NAMES,
  decliningTestBankAccount,
  decliningTestCreditCard,
  failingTestBankAccount,
  failingTestCreditCard,
  testBankAccount,
  testCreditCard,
} from "./payment-input";
export type { BankAccountFields, CreditCardFields, CustomerDetails, InputProperty } from "./payment-input";
export type { PaymentMethod, PaymentMethodCustomer } from "./payment-method";
export { SDK_ERROR_CODES } from "./errors";
export type { PaymentError, PaymentErrorCode, SdkErrorCode } from "./errors";
export type { ApiErrorCode, DeclineCode } from "../rules/codes";
export { DECLINE_CODES, DECLINE_REASONS, isDeclineCode } from "../rules/declines";
export type { DeclineReason } from "../rules/declines";
