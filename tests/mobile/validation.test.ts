/**
 * Client-side validation mirrors the server because both run packages/rules/validation.ts: for every bad
 * input below, the SDK's own errors (nothing sent) equal the sandbox's errors for the same input
 * sent with validation off. Rules only the sandbox can know (test-card list, merchant AVS,
 * customer ids) come back from the server as the same typed validation error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  BankAccount,
  CreditCard,
  PaymentApi,
  PaymentConfiguration,
  testBankAccount,
  testCreditCard,
} from "paysandbox-mobile";
import { MESSAGES } from "../../packages/rules/messages";
import { LIMITS } from "../../packages/rules/validation";
import { serve, setup, type TestContext } from "../support/app";
import { proxy, type Proxy } from "./proxy";

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let recorder: Proxy;
let api: PaymentApi;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  recorder = proxy(sandbox.url);
  api = new PaymentApi({
    configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: recorder.url }),
  });
});

afterAll(async () => {
  await recorder.stop();
  await sandbox.stop();
});

const card = (changes: Partial<CreditCard>) => Object.assign(testCreditCard(), changes);
const bank = (changes: Partial<BankAccount>) => Object.assign(testBankAccount(), changes);
const long = (n: number) => "x".repeat(n);

/** Bad input → the errors both sides must report, keyed by SDK property. */
const CASES: [string, CreditCard | BankAccount, Record<string, string[]>][] = [
  ["a number failing Luhn", CreditCard.failingTestCreditCard(), { cardNumber: [MESSAGES.cardNumberInvalid] }],
  ["a number with letters", card({ cardNumber: "4111-1111-abcd-1111" }), { cardNumber: [MESSAGES.cardNumberDigits] }],
  ["a number too short for Visa", card({ cardNumber: "41111111111" }), { cardNumber: [MESSAGES.cardNumberInvalid] }],
  ["no number", card({ cardNumber: "" }), { cardNumber: [MESSAGES.required("card_number")] }],
  ["month 13", card({ cardExp: "1330" }), { cardExp: [MESSAGES.cardExp] }],
  ["a five-digit expiry", card({ cardExp: "12300" }), { cardExp: [MESSAGES.cardExp] }],
  ["an expired card", card({ cardExp: "0120" }), { cardExp: [MESSAGES.cardExpired] }],
  ["no expiry", card({ cardExp: "" }), { cardExp: [MESSAGES.required("card_exp")] }],
  ["a 2-digit CVV", card({ cardCvv: "12" }), { cardCvv: [MESSAGES.cvvInvalid(3)] }],
  [
    "a 3-digit CVV on Amex",
    card({ cardNumber: "378282246310005", cardCvv: "123" }),
    { cardCvv: [MESSAGES.cvvInvalid(4)] },
  ],
  ["no name", card({ personName: "" }), { personName: [MESSAGES.required("person_name")] }],
  [
    "a 51-character name",
    card({ personName: long(51) }),
    { personName: [MESSAGES.maxLength("person_name", LIMITS.name)] },
  ],
  ["an invalid email", card({ email: "not-an-email" }), { email: [MESSAGES.email] }],
  ["a short phone", card({ phone: "555" }), { phone: [MESSAGES.minLength("phone", LIMITS.phoneMin)] }],
  ["a 3-letter state", card({ addressState: "FLA" }), { addressState: [MESSAGES.maxLength("address_state", 2)] }],
  [
    "a 2-letter country",
    card({ addressCountry: "US" }),
    { addressCountry: [MESSAGES.exactLength("address_country", 3)] },
  ],
  [
    "a 256-character street",
    card({ address1: long(256) }),
    { address1: [MESSAGES.maxLength("address_1", LIMITS.address)] },
  ],
  ["a 51-character firstname", card({ firstname: long(51) }), { firstname: [MESSAGES.maxLength("firstname", 50)] }],
  [
    "several card mistakes at once",
    card({ cardNumber: "4111111111111112", cardExp: "1399", cardCvv: "1", personName: "" }),
    {
      cardNumber: [MESSAGES.cardNumberInvalid],
      cardExp: [MESSAGES.cardExp],
      cardCvv: [MESSAGES.cvvInvalid(3)],
      personName: [MESSAGES.required("person_name")],
    },
  ],
  ["a bad routing checksum", BankAccount.failingTestBankAccount(), { bankRouting: [MESSAGES.routingChecksum] }],
  ["an 8-digit routing number", bank({ bankRouting: "02100002" }), { bankRouting: [MESSAGES.routingDigits] }],
  ["an account with letters", bank({ bankAccount: "98765abc" }), { bankAccount: [MESSAGES.accountDigits] }],
  ["no account", bank({ bankAccount: "" }), { bankAccount: [MESSAGES.required("bank_account")] }],
  [
    "an unknown bank type",
    bank({ bankType: "brokerage" }),
    { bankType: [MESSAGES.oneOf("bank_type", ["checking", "savings"])] },
  ],
  [
    "an unknown holder type",
    bank({ bankHolderType: "trust" }),
    { bankHolderType: [MESSAGES.oneOf("bank_holder_type", ["personal", "business"])] },
  ],
  [
    "no holder type and no name",
    bank({ bankHolderType: "", personName: "" }),
    { bankHolderType: [MESSAGES.required("bank_holder_type")], personName: [MESSAGES.required("person_name")] },
  ],
];

describe("client-side validation mirrors the sandbox", () => {
  test.each(CASES)(
    "%s: the SDK reports it without sending, and the sandbox reports the same",
    async (_name, input, expected) => {
      const before = recorder.seen.length;
      const client = await api.tokenize(input);
      expect(recorder.seen.length).toBe(before);
      expect(client.error?.code).toBe("validation_error");
      expect(client.error?.fields).toEqual(expected);

      const server = await api.tokenize(input, undefined, { validate: false });
      expect(recorder.seen.length).toBe(before + 1);
      expect(server.error?.code).toBe("validation_error");
      expect(server.error?.status).toBe(422);
      expect(server.error?.fields).toEqual(expected);
    },
  );

  test("a customerId makes the customer fields irrelevant on both sides", async () => {
    const first = await api.tokenize(testCreditCard());
    const withCustomer = card({ customerId: first.paymentMethod!.customer_id, phone: "1", email: "bad" });
    const response = await api.tokenize(withCustomer);
    expect(response.ok).toBe(true);
    expect(response.paymentMethod!.customer_id).toBe(first.paymentMethod!.customer_id);
  });
});

describe("rules only the sandbox can check", () => {
  test("a valid card number that is not a test card passes the SDK and is refused by the sandbox", async () => {
    const before = recorder.seen.length;
    const response = await api.tokenize(card({ cardNumber: "4242424242424242" }));
    expect(recorder.seen.length).toBe(before + 1);
    expect(response.error?.status).toBe(422);
    expect(response.error?.fields).toEqual({ cardNumber: [MESSAGES.cardNumberNotTest] });
  });

  test("a valid routing number that is not the test one passes the SDK and is refused by the sandbox", async () => {
    const response = await api.tokenize(bank({ bankRouting: "011000015" }));
    expect(response.error?.status).toBe(422);
    expect(response.error?.fields).toEqual({ bankRouting: [MESSAGES.routingNotTest] });
  });

  test("the test routing number with another account tokenizes (it declines later, at charge)", async () => {
    const response = await api.tokenize(bank({ bankAccount: "1234567890" }));
    expect(response.ok).toBe(true);
    const charged = await ctx.call("POST", "/charge", {
      body: { payment_method_id: response.paymentMethod!.id, total: 5 },
    });
    expect(charged.status).toBe(402);
    expect(charged.body.code).toBe("payment_declined");
  });
});
