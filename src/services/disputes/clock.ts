/**
 * Disputes on the sandbox clock, a settlement step (../settlement.ts): when a card batch closes,
 * each charge on a disputed test card (packages/rules/test-data.ts, `dispute`) is scheduled to be
 * disputed at the `days`-th midnight after; at that midnight the dispute opens (its amount and the
 * dispute fee withdrawn through adjustments, create_dispute, an e-mail to the merchant); at its
 * respond_by an unanswered dispute is lost; submitted evidence is decided DECISION_DAYS after the
 * submission (won: the amount given back). Each step is in the midnight's unit of work and moves
 * the dispute's status and next_at, so a crash does none of it and the catch-up does it once.
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/disputes";
import type { DisputeRow } from "../../storage/repositories/disputes";
import { evidenceContents } from "../../storage/repositories/files";
import { findMerchant } from "../../storage/repositories/merchants";
import { lockTransaction } from "../../storage/repositories/transactions";
import type { EventBus } from "../../domain/events";
import { DISPUTE_FEE_CENTS } from "../../domain/fees";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import type { AdjustmentService } from "../adjustments";
import type { Mailer } from "../mail/mailer";
import { refundableCents } from "../transactions";
import { DAY_MS, type SettlementStep } from "../settlement";
import { decide, RESPOND_DAYS } from "./rules";
import { openedMessage } from "./mail";
import type { DisputeService } from "./index";

export class DisputeClock implements SettlementStep {
  constructor(
    private readonly db: Database,
    private readonly events: EventBus<Executor>,
    private readonly adjustments: AdjustmentService,
    private readonly disputes: DisputeService,
    private readonly mailer: Mailer,
  ) {}

  async nextAt(ex: Executor, merchantId: string): Promise<number | null> {
    const at = await repo.earliestDisputeStep(ex, merchantId);
    return at === null ? null : parseTimestamp(at).getTime();
  }

  pendingMerchants(): Promise<string[]> {
    return repo.merchantsWithDisputeSteps(this.db);
  }

  /** Schedules the disputes of the card batch closed at `at`, then runs every dispute step due by `at`. */
  async run(ex: Executor, merchantId: string, at: number): Promise<boolean> {
    const midnight = formatTimestamp(new Date(at));
    const scheduled = await repo.disputedCharges(ex, merchantId, midnight);
    for (const charge of scheduled) {
      const opensAt = formatTimestamp(new Date(at + charge.days * DAY_MS));
      await repo.insertDispute(ex, {
        id: crypto.randomUUID(),
        merchant_id: merchantId,
        transaction_id: charge.id,
        reason: charge.reason,
        amount_cents: 0,
        fee_cents: DISPUTE_FEE_CENTS,
        status: "SCHEDULED",
        respond_by: opensAt,
        notes: null,
        submitted_at: null,
        outcome: null,
        closed_at: null,
        next_at: opensAt,
        opened_at: null,
        created_at: opensAt,
        updated_at: midnight,
      });
    }
    const due = await repo.dueDisputes(ex, merchantId, midnight);
    for (const dispute of due) {
      if (dispute.status === "SCHEDULED") await this.open(ex, dispute);
      else await this.close(ex, dispute);
    }
    return scheduled.length > 0 || due.length > 0;
  }

  /** Opens a scheduled dispute at its next_at: the amount still kept from the charge, and the fee, withdrawn. */
  private async open(ex: Executor, dispute: DisputeRow): Promise<void> {
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
    await this.adjustments.record(ex, merchantId, {
      ...common,
      kind: "dispute",
      amountCents: -amountCents,
      description: `Dispute (${dispute.reason})`,
      key: `dispute:${dispute.id}`,
    });
    await this.adjustments.record(ex, merchantId, {
      ...common,
      kind: "dispute_fee",
      amountCents: -dispute.fee_cents,
      description: `Dispute fee (${dispute.reason})`,
      key: `dispute_fee:${dispute.id}`,
    });
    const record = await this.disputes.get(merchantId, dispute.id, ex);
    await this.events.emit(ex, { merchantId, name: "create_dispute", record });
    const merchant = (await findMerchant(ex, merchantId))!;
    await this.mailer.store(ex, openedMessage(merchant, record), at);
  }

  /** Decides a dispute at its next_at: unanswered by respond_by, lost; submitted, by its evidence. */
  private async close(ex: Executor, dispute: DisputeRow): Promise<void> {
    const at = dispute.next_at!;
    const merchantId = dispute.merchant_id;
    let outcome: "won" | "lost" = "lost";
    if (dispute.status === "EVIDENCE_UPLOADED") {
      const files = await evidenceContents(ex, dispute.id);
      outcome = decide([dispute.notes ?? "", ...files.flatMap((file) => [file.name, file.content])]);
    }
    await repo.updateDispute(ex, dispute.id, {
      status: outcome === "won" ? "WON" : "LOST",
      outcome,
      next_at: null,
      closed_at: at,
      updated_at: at,
    });
    if (outcome === "won") {
      await this.adjustments.record(ex, merchantId, {
        kind: "dispute_reversal",
        method: "card",
        amountCents: dispute.amount_cents,
        transactionId: dispute.transaction_id,
        sourceId: dispute.id,
        code: dispute.reason,
        description: `Dispute won (${dispute.reason}): amount returned`,
        effectiveAt: parseTimestamp(at),
        key: `dispute_reversal:${dispute.id}`,
      });
    }
    const record = await this.disputes.get(merchantId, dispute.id, ex);
    await this.events.emit(ex, { merchantId, name: "update_dispute", record });
  }
}
