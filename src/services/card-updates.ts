/**
 * Card updates (docs/testing-failures.md, "Card updates"): a test card whose brand updates it
 * (packages/rules/test-data.ts, `update`) gets its new expiry or last four at the first midnight
 * UTC its documented number of days after it was saved, on the merchant's sandbox clock, and
 * `update_payment_method` is sent with the record. Later charges (and the invoice schedules,
 * which charge the payment method as it is then) use the new data. A settlement step
 * (./settlement.ts): run at the midnight in that midnight's unit of work, so an advance, the
 * real-time tick and a restart's catch-up apply each update once.
 */
import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/card-updates";
import type { EventBus } from "../domain/events";
import { parseJson } from "../lib/json";
import { formatTimestamp, parseTimestamp } from "../domain/time";
import type { PaymentMethodService } from "./payment-methods";
import type { SettlementStep } from "./settlement";

export class CardUpdates implements SettlementStep {
  constructor(
    private readonly db: Database,
    private readonly events: EventBus<Executor>,
    private readonly paymentMethods: PaymentMethodService,
  ) {}

  async nextAt(ex: Executor, merchantId: string): Promise<number | null> {
    const at = await repo.earliestCardUpdate(ex, merchantId);
    return at === null ? null : parseTimestamp(at).getTime();
  }

  pendingMerchants(): Promise<string[]> {
    return repo.merchantsWithCardUpdates(this.db);
  }

  async run(ex: Executor, merchantId: string, at: number): Promise<boolean> {
    const due = await repo.dueCardUpdates(ex, merchantId, formatTimestamp(new Date(at)));
    for (const row of due) {
      const change = parseJson<{ card_exp?: string; card_last_four?: string }>(row.card_update ?? "{}", {});
      await repo.applyCardUpdate(
        ex,
        row.id,
        { card_exp: change.card_exp ?? null, card_last_four: change.card_last_four ?? null },
        row.card_update_at!,
      );
      // A deleted card is updated too (it stays readable), but nobody is told about a card they removed.
      if (row.deleted_at) continue;
      const record = await this.paymentMethods.get(merchantId, row.id, ex);
      await this.events.emit(ex, { merchantId, name: "update_payment_method", record });
    }
    return due.length > 0;
  }
}
