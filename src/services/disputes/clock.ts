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
import type { EventBus } from "../../domain/events";
import { DISPUTE_FEE_CENTS } from "../../domain/fees";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import type { AdjustmentService } from "../adjustments";
import type { Mailer } from "../mail/mailer";
import { DAY_MS, type AfterCommit, type SettlementStep } from "../settlement";
import { decide } from "./rules";
import { openDispute, openDisputeNow } from "./opening";
import type { SandboxClock } from "../clock";
import type { DisputeRecord } from "../../domain/schemas/disputes";
import type { DisputeService } from "./index";

export class DisputeClock implements SettlementStep {
  constructor(
    private readonly db: Database,
    readonly events: EventBus<Executor>,
    readonly adjustments: AdjustmentService,
    readonly disputes: DisputeService,
    readonly mailer: Mailer,
    private readonly clock: SandboxClock,
  ) {}

  /** POST /_sandbox/disputes: the cardholder disputes a settled card payment now, in a unit of work of its own. */
  async openNow(merchantId: string, transactionId: string, reason: string): Promise<DisputeRecord> {
    const committed: (() => void)[] = [];
    const record = await this.db.transaction((tx) => {
      committed.length = 0;
      const now = this.clock.timestamp(merchantId);
      return openDisputeNow(tx, merchantId, { transactionId, reason, now }, this, (work) => committed.push(work));
    });
    for (const work of committed) work();
    return record;
  }

  async nextAt(ex: Executor, merchantId: string): Promise<number | null> {
    const at = await repo.earliestDisputeStep(ex, merchantId);
    return at === null ? null : parseTimestamp(at).getTime();
  }

  pendingMerchants(): Promise<string[]> {
    return repo.merchantsWithDisputeSteps(this.db);
  }

  /** Schedules the disputes of the card batch closed at `at`, then runs every dispute step due by `at`. */
  async run(ex: Executor, merchantId: string, at: number, afterCommit: AfterCommit): Promise<boolean> {
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
      if (dispute.status === "SCHEDULED") await openDispute(ex, dispute, this, afterCommit);
      else await this.close(ex, dispute);
    }
    return scheduled.length > 0 || due.length > 0;
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
