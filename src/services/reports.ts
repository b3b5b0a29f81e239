/**
 * The statement reports and the team summary of the real service, computed from what is stored.
 * Dates are the sandbox clock's (UTC days of `created_at`); a range is startDate to endDate, both
 * inclusive. A sale is a successful, unvoided charge or capture (a pre_auth counts when captured).
 * Fees are the simulated processor's (src/domain/fees.ts), whether the sale has settled yet or not.
 * The sandbox's payments are card-not-present (`is_card_present` 0); a card's `bin_type` is its
 * funding as stored from its test card (CREDIT, DEBIT or PREPAID).
 */
import type { Database } from "../storage/database";
import { salesBetween, teamCounts, type SaleRow, type TeamCounts } from "../storage/repositories/reports";
import { CARD_FEE_FIXED_CENTS, CARD_FEE_PER_MILLE, feeCents } from "../domain/fees";
import { centsToNumber } from "../domain/money";

export interface DateRange {
  startDate: string;
  endDate: string;
}

/** A card sale's funding (a card stored before bin_type existed is a credit card, as migration 042 says). */
const binTypeOf = (row: SaleRow) => (row.method === "card" ? (row.bin_type ?? "CREDIT") : null);
const sumOf = (rows: readonly SaleRow[]) => rows.reduce((sum, row) => sum + row.total_cents, 0);
const surchargesOf = (rows: readonly SaleRow[]) => rows.reduce((sum, row) => sum + Number(row.surcharge_cents), 0);
/** A day's (or the range's) daily-sales line: the sales without their surcharges, the surcharges, the fees. */
const dailyLine = (rows: readonly SaleRow[]) => ({
  sales_total: centsToNumber(sumOf(rows) - surchargesOf(rows)),
  surcharge_total: centsToNumber(surchargesOf(rows)),
  fees_total: centsToNumber(feesOf(rows)),
});
const feesOf = (rows: readonly SaleRow[]) =>
  rows.reduce((sum, r) => sum + feeCents(r.method, "charge", r.total_cents), 0);

/** Rows grouped by a key, in first-seen order. */
function groupBy<K>(rows: readonly SaleRow[], key: (row: SaleRow) => K): Map<K, SaleRow[]> {
  const groups = new Map<K, SaleRow[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

export class ReportService {
  constructor(private readonly db: Database) {}

  private sales(merchantId: string, range: DateRange): Promise<SaleRow[]> {
    return salesBetween(this.db, merchantId, `${range.startDate} 00:00:00`, `${range.endDate} 23:59:59`);
  }

  /**
   * GET /query/statement/v3/daily-sales: per day with a sale, the sales (without the surcharges
   * added on top of them, as the surcharge statement counts them), the surcharges those sales
   * carried, and the fees (taken on what the card paid, surcharge included); and their sums.
   */
  async dailySales(merchantId: string, range: DateRange) {
    const days = groupBy(await this.sales(merchantId, range), (row) => row.created_at.slice(0, 10));
    const data = [...days].map(([date, rows]) => ({ date, ...dailyLine(rows) }));
    return { data, summary: dailyLine([...days.values()].flat()) };
  }

  /**
   * GET /query/statement/v3/volumes/card-processing: sales by payment method and card funding
   * (a line per method and bin_type), by kind, by card brand.
   */
  async cardProcessing(merchantId: string, range: DateRange) {
    const rows = await this.sales(merchantId, range);
    const byMethod = groupBy(rows, (row) => row.method);
    const byFunding = groupBy(rows, (row) => `${row.method} ${binTypeOf(row)}`);
    const cards = rows.filter((row) => row.method === "card");
    return {
      data: {
        groupByPaymentMethod: [...byFunding.values()].map((group) => ({
          method: group[0]!.method,
          bin_type: binTypeOf(group[0]!),
          total_amt: centsToNumber(sumOf(group)),
        })),
        groupByTransactionType: [...byMethod].map(([method, group]) => ({
          method,
          is_card_present: 0,
          total_amt: centsToNumber(sumOf(group)),
        })),
        groupByCardBrand: [...groupBy(cards, (row) => row.card_type ?? "unknown")].map(([card_type, group]) => ({
          card_type,
          total_amt: centsToNumber(sumOf(group)),
        })),
      },
    };
  }

  /** GET /query/statement/v3/volumes/card-type: card sales and their fees per brand and funding, and the sums. */
  async cardType(merchantId: string, range: DateRange) {
    const cards = (await this.sales(merchantId, range)).filter((row) => row.method === "card");
    const line = (group: readonly SaleRow[]) => {
      const total = feesOf(group);
      const perTransaction = CARD_FEE_FIXED_CENTS * group.length;
      return {
        total_charges: centsToNumber(sumOf(group)),
        use_count: group.length,
        rate_fees: centsToNumber(total - perTransaction),
        per_transaction_fees: centsToNumber(perTransaction),
        interchange_fees_amount: 0,
        total_fees: centsToNumber(total),
      };
    };
    const byBrand = groupBy(cards, (row) => `${row.card_type ?? "unknown"} ${binTypeOf(row)}`);
    const data = [...byBrand.values()].map((group) => ({
      is_card_present: 0,
      card_brand: group[0]!.card_type ?? "unknown",
      bin_type: binTypeOf(group[0]!)!,
      rate: CARD_FEE_PER_MILLE / 10,
      ...line(group),
    }));
    return { data, summary: line(cards) };
  }

  /** GET /query/statistics/teamSummary: counts of the merchant's records (one user: its API user). */
  async teamSummary(merchantId: string): Promise<TeamCounts & { user_count: number; file_count: number }> {
    return { ...(await teamCounts(this.db, merchantId)), user_count: 1, file_count: 0 };
  }
}
