/**
 * Opening a dispute (docs/settlement.md, "Disputes"): on a disputed test card's day (./clock.ts),
 * or at once for any settled card payment (POST /_sandbox/disputes). The amount still held and the
 * fee are withdrawn through adjustments effective at the opening, create_dispute is sent and the
 * merchant is e-mailed, all in the caller's unit of work.
 */
import type { Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/disputes";
import type { DisputeRow } from "../../storage/repositories/disputes";
import { findMerchant } from "../../storage/repositories/merchants";
import { lockTransaction } from "../../storage/repositories/transactions";
import type { EventBus } from "../../domain/events";
import { invalidState, notFound } from "../../domain/errors";
import { DISPUTE_FEE_CENTS } from "../../domain/fees";
import type { DisputeRecord } from "../../domain/schemas/disputes";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import type { AdjustmentService } from "../adjustments";
import type { Mailer } from "../mail/mailer";
import { refundableCents } from "../transactions";
import { DAY_MS, type AfterCommit } from "../settlement";
import { DISPUTE_MESSAGES, RESPOND_DAYS } from "./rules";
import { openedMessage } from "./mail";
import type { DisputeService } from "./index";

export interface OpeningDeps {
  events: EventBus<Executor>;
  adjustments: AdjustmentService;
  disputes: DisputeService;
  mailer: Mailer;
}

/** Opens a scheduled dispute at its next_at: the amount still kept from the charge, and the fee, withdrawn. */
export async function openDispute(
  ex: Executor,
  dispute: DisputeRow,
  deps: OpeningDeps,
  afterCommit: AfterCommit,
): Promise<void> {
  const at = dispute.next_at!;
  const merchantId = dispute.merchant_id;
  const charge = (await lockTransaction(ex, merchantId, dispute.transaction_id))!;
  const amountCents = refundableCents(charge);
  if (amountCents <= 0) {
    // Refunded in full before the cardholder's bank acted: nothing left to dispute.
    await repo.updateDispute(ex, dispute.id, { status: "CANCELED", next_at: null, closed_at: at, updated_at: at });
    return;
  }
  const respondBy = formatTimestamp(new Date(parseTimestamp(at).getTime() + RESPOND_DAYS * DAY_MS));
  await repo.updateDispute(ex, dispute.id, {
    status: "PENDING",
    amount_cents: amountCents,
    respond_by: respondBy,
    next_at: respondBy,
    opened_at: at,
    created_at: at,
    updated_at: at,
  });
  const common = {
    method: "card" as const,
    transactionId: charge.id,
    sourceId: dispute.id,
    code: dispute.reason,
    effectiveAt: parseTimestamp(at),
  };
  await deps.adjustments.record(ex, merchantId, {
    ...common,
    kind: "dispute",
    amountCents: -amountCents,
    description: `Dispute (${dispute.reason})`,
    key: `dispute:${dispute.id}`,
  });
  await deps.adjustments.record(ex, merchantId, {
    ...common,
    kind: "dispute_fee",
    amountCents: -dispute.fee_cents,
    description: `Dispute fee (${dispute.reason})`,
    key: `dispute_fee:${dispute.id}`,
  });
  const record = await deps.disputes.get(merchantId, dispute.id, ex);
  await deps.events.emit(ex, { merchantId, name: "create_dispute", record });
  const merchant = (await findMerchant(ex, merchantId))!;
  const mail = await deps.mailer.store(ex, openedMessage(merchant, record), at);
  // Relayed (with --smtp) once the opening is kept, never for a unit of work rolled back.
  afterCommit(() => deps.mailer.relayStored(mail));
}

/**
 * Opens a dispute on a settled card payment at `now` (POST /_sandbox/disputes), or the 4xx that
 * says why not: a bank payment, a child, a failed, unsettled, voided, fully refunded or already
 * disputed one.
 */
export async function openDisputeNow(
  ex: Executor,
  merchantId: string,
  input: { transactionId: string; reason: string; now: string },
  deps: OpeningDeps,
  afterCommit: AfterCommit,
): Promise<DisputeRecord> {
  const charge = await lockTransaction(ex, merchantId, input.transactionId);
  if (!charge) throw notFound("Transaction");
  if (charge.method !== "card") throw invalidState(DISPUTE_MESSAGES.bank);
  const disputable =
    charge.parent_id === null &&
    (charge.type === "charge" || charge.type === "pre_auth") &&
    charge.success === 1 &&
    charge.is_voided === 0 &&
    charge.settled_at !== null &&
    refundableCents(charge) > 0;
  if (!disputable) throw invalidState(DISPUTE_MESSAGES.notDisputable);
  const row: DisputeRow = {
    id: crypto.randomUUID(),
    merchant_id: merchantId,
    transaction_id: charge.id,
    reason: input.reason,
    amount_cents: 0,
    fee_cents: DISPUTE_FEE_CENTS,
    status: "SCHEDULED",
    respond_by: input.now,
    notes: null,
    submitted_at: null,
    outcome: null,
    closed_at: null,
    next_at: input.now,
    opened_at: null,
    created_at: input.now,
    updated_at: input.now,
  };
  if (!(await repo.insertDispute(ex, row))) throw invalidState(DISPUTE_MESSAGES.alreadyDisputed);
  await openDispute(ex, row, deps, afterCommit);
  return deps.disputes.get(merchantId, row.id, ex);
}
