/**
 * Surcharging as the merchant asks about it (docs/contract.md "Surcharging"): what a payment would
 * pay on top (GET /surcharge/review) and what the surcharges came to (GET
 * /query/statement/v3/surcharges). Charging the surcharge is the charge's own work
 * (src/services/transactions); the arithmetic is src/domain/surcharge.ts.
 *
 * Vocabulary (docs/architecture.md, "Services"): the domain verbs `review` and `statement`.
 */
import type { Database } from "../storage/database";
import { surchargesByDay } from "../storage/repositories/surcharges";
import { centsToNumber } from "../domain/money";
import { decideSurcharge, rateNumber, rateText, SURCHARGE_MESSAGES } from "../domain/surcharge";
import type { SurchargeReview, SurchargeStatement } from "../domain/schemas/surcharges";
import type { MerchantRow } from "../storage/repositories/merchants";
import { surchargePolicyOf } from "./merchant-settings";
import type { PaymentMethodService } from "./payment-methods";

type Review = typeof SurchargeReview.static;
type Statement = typeof SurchargeStatement.static;
type Totals = Statement["summary"];

const emptyTotals = () => ({ count: 0, sales: 0, surcharge: 0, refunded: 0 });

function totalsOf(t: ReturnType<typeof emptyTotals>): Totals {
  return {
    transaction_count: t.count,
    sales_total: centsToNumber(t.sales),
    surcharge_total: centsToNumber(t.surcharge),
    refunded_surcharge_total: centsToNumber(t.refunded),
    net_surcharge_total: centsToNumber(t.surcharge - t.refunded),
  };
}

export class SurchargeService {
  constructor(
    private readonly db: Database,
    private readonly paymentMethods: PaymentMethodService,
  ) {}

  /**
   * The surcharge a payment of `totalCents` (the sale) with this payment method would add under
   * the merchant's settings, or why none would: a 404 when the merchant has no such payment method.
   */
  async review(merchant: MerchantRow, paymentMethodId: string, totalCents: number): Promise<Review> {
    const pm = await this.paymentMethods.getRow(this.db, merchant.id, paymentMethodId);
    const decision = decideSurcharge(surchargePolicyOf(merchant), pm, totalCents);
    return {
      bin_type: decision.binType,
      surcharge_rate: rateNumber(decision.rateBps),
      surcharge_amount: centsToNumber(decision.cents),
      total_with_surcharge_amount: centsToNumber(totalCents + decision.cents),
      no_surcharge_reason: decision.reason,
      explanation:
        decision.reason === null
          ? SURCHARGE_MESSAGES.applies(rateText(decision.rateBps))
          : SURCHARGE_MESSAGES[decision.reason],
    };
  }

  /** The surcharges of the days from `startDate` to `endDate` (YYYY-MM-DD, UTC, inclusive), by day. */
  async statement(merchantId: string, startDate: string, endDate: string): Promise<Statement> {
    const rows = await surchargesByDay(this.db, merchantId, `${startDate} 00:00:00`, `${endDate} 23:59:59`);
    const days = new Map<string, ReturnType<typeof emptyTotals>>();
    const summary = emptyTotals();
    for (const row of rows) {
      const day = days.get(row.date) ?? emptyTotals();
      days.set(row.date, day);
      for (const t of [day, summary]) {
        if (row.kind === "refund") t.refunded += row.surcharge_cents;
        else {
          t.count += row.n;
          t.sales += row.total_cents - row.surcharge_cents;
          t.surcharge += row.surcharge_cents;
        }
      }
    }
    return {
      data: [...days].map(([date, t]) => ({ date, ...totalsOf(t) })),
      summary: totalsOf(summary),
    };
  }
}
