/**
 * Credits (POST /credit): money sent to a card or bank account with no prior charge, stored as a
 * top-level `credit` transaction. The rules (docs/contract.md, "Credits"):
 * - the total is > 0 with at most two decimals, like a charge's;
 * - the payment method is the merchant's, not deleted, and (a card) not expired on the merchant's clock;
 * - a merchant credits at most CREDIT_DAILY_LIMIT_CENTS a day (the sandbox clock's UTC day),
 *   counting its successful credits: unreferenced credits are what processors cap;
 * - the payment method's test outcome (or an armed outcome sequence) decides: a declining test
 *   card declines the credit too, and the declined credit is kept. No address or CVV checks: a
 *   credit buys nothing;
 * - a credit is never captured, voided or refunded; it settles in the next batch of its method as
 *   money out, like a refund (no fee), and lowers that batch's deposit (src/services/settlement.ts).
 */
import type { Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/transactions";
import type { TransactionRow } from "../../storage/repositories/transactions";
import { takeNextOutcome } from "../../storage/repositories/sandbox-outcomes";
import { holdUntilCommit } from "../../storage/repositories/locks";
import { authorize } from "../../domain/gateway";
import type { EventBus } from "../../domain/events";
import { ValidationFailed, invalidState } from "../../domain/errors";
import type { Outcome } from "../../../packages/rules/test-data";
import type { SandboxClock } from "../clock";
import type { PaymentMethodService } from "../payment-methods";
import { buildRecord, type Transaction } from "./records";
import { amount, cardExpired, STATE_MESSAGES } from "./rules";

/** What one merchant may credit in a day (10,000.00), counting its successful credits. */
export const CREDIT_DAILY_LIMIT_CENTS = 1_000_000;

export const CREDIT_MESSAGES = {
  dailyLimit: (left: string) =>
    `A merchant may credit at most ${amount(CREDIT_DAILY_LIMIT_CENTS)} a day; ${left} is left today (UTC, on the sandbox clock).`,
} as const;

export interface CreditInput {
  paymentMethodId: string;
  totalCents: number;
  meta: Record<string, unknown>;
}

export interface CreditParts {
  clock: SandboxClock;
  events: EventBus<Executor>;
  paymentMethods: PaymentMethodService;
}

/**
 * Sends a credit to a payment method in the caller's unit of work: the `credit` transaction,
 * approved or declined, and its create_transaction event. Returns the row and its record.
 */
export async function credit(
  ex: Executor,
  parts: CreditParts,
  merchantId: string,
  input: CreditInput,
): Promise<{ row: TransactionRow; record: Transaction }> {
  const { clock, events, paymentMethods } = parts;
  const { pm, customer } = await paymentMethods.chargeableWithCustomer(ex, merchantId, input.paymentMethodId);
  const now = clock.now(merchantId);
  if (pm.method === "card" && pm.card_exp && cardExpired(pm.card_exp, now)) {
    throw invalidState(STATE_MESSAGES.cardExpired);
  }
  // Two credits at once must not both fit under the limit: they take turns from the check on.
  await holdUntilCommit(ex, "credit-limit", merchantId);
  const dayStart = `${now.toISOString().slice(0, 10)} 00:00:00`;
  const credited = await repo.creditedSince(ex, merchantId, dayStart);
  if (credited + input.totalCents > CREDIT_DAILY_LIMIT_CENTS) {
    const left = Math.max(0, CREDIT_DAILY_LIMIT_CENTS - credited);
    throw new ValidationFailed({ total: [CREDIT_MESSAGES.dailyLimit(amount(left))] });
  }
  const armed = pm.outcomes_armed ? ((await takeNextOutcome(ex, pm)) as Outcome | undefined) : undefined;
  const auth = authorize(armed ?? pm.outcome, pm.method);
  const stamp = clock.timestamp(merchantId);
  const row = await repo.insertCharge(ex, {
    id: Bun.randomUUIDv7(),
    merchant_id: merchantId,
    invoice_id: null,
    customer_id: pm.customer_id,
    payment_method_id: pm.id,
    method: pm.method,
    type: "credit",
    success: auth.success ? 1 : 0,
    total_cents: input.totalCents,
    last_four: (pm.method === "card" ? pm.card_last_four : pm.bank_last_four) ?? "",
    auth_id: auth.authId,
    issuer_auth_code: auth.issuerAuthCode,
    message: auth.message,
    decline_code: auth.declineCode,
    avs_street_result: null,
    avs_zip_result: null,
    cvv_result: null,
    meta: JSON.stringify(input.meta),
    is_merchant_present: 1,
    reference_id: auth.authId ?? "",
    source: "api",
    pre_auth: 0,
    receipt_email_at: null,
    surcharge_cents: 0,
    schedule_id: null,
    created_at: stamp,
    updated_at: stamp,
  });
  const record = buildRecord(row, { pm, customer, children: [] });
  await events.emit(ex, { merchantId, name: "create_transaction", record });
  return { row, record };
}
