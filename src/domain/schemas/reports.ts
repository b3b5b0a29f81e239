import { t } from "elysia";
import { Integer } from "./records";

const Dollars = (description?: string) => t.Number(description ? { description } : {});

/** A card's funding as its BIN says (the payment method's bin_type). */
const BinType = (description: string) =>
  t.Union([t.Literal("CREDIT"), t.Literal("DEBIT"), t.Literal("PREPAID")], { description });

const Day = t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "YYYY-MM-DD (UTC, the sandbox clock)" });

/** The date range every statement report takes: both ends inclusive. */
export const StatementQuery = t.Object({
  startDate: Day,
  endDate: Day,
});

const SalesFields = {
  sales_total: Dollars("Successful, unvoided charges and captures, without the surcharges added on top"),
  surcharge_total: Dollars("The credit card surcharges those sales carried"),
  fees_total: Dollars("The processor's fees on those sales"),
};

export const DailySalesReport = t.Object(
  {
    data: t.Array(t.Object({ date: Day, ...SalesFields }), { description: "One per day with a sale, oldest first" }),
    summary: t.Object(SalesFields),
  },
  { title: "DailySalesReport" },
);

export const CardProcessingReport = t.Object(
  {
    data: t.Object({
      groupByPaymentMethod: t.Array(
        t.Object({
          method: t.String(),
          bin_type: t.Union([BinType("The cards' funding"), t.Null()], { description: "null for bank payments" }),
          total_amt: Dollars(),
        }),
        { description: "One line per method and card funding (bin_type)" },
      ),
      groupByTransactionType: t.Array(
        t.Object({ method: t.String(), is_card_present: Integer(), total_amt: Dollars() }),
      ),
      groupByCardBrand: t.Array(t.Object({ card_type: t.String(), total_amt: Dollars() })),
    }),
  },
  { title: "CardProcessingReport" },
);

const CardTypeFields = {
  total_charges: Dollars(),
  use_count: Integer(),
  rate_fees: Dollars("The percentage part of the fees (2.9%)"),
  per_transaction_fees: Dollars("The fixed part (0.30 a sale)"),
  interchange_fees_amount: Dollars(),
  total_fees: Dollars(),
};

export const CardTypeReport = t.Object(
  {
    data: t.Array(
      t.Object({
        is_card_present: Integer(),
        card_brand: t.String(),
        bin_type: BinType("The cards' funding: a brand's credit, debit and prepaid cards are lines of their own"),
        rate: t.Number({ description: "The percentage rate" }),
        ...CardTypeFields,
      }),
    ),
    summary: t.Object(CardTypeFields),
  },
  { title: "CardTypeReport" },
);

export const TeamSummary = t.Object(
  {
    charge_count_success: Integer(),
    refund_count_success: Integer(),
    charge_count_fail: Integer(),
    invoice_count: Integer({ description: "Invoices not deleted" }),
    scheduled_invoice_count: Integer({ description: "Of those, made by a schedule" }),
    customer_count: Integer({ description: "Customers not deleted" }),
    user_count: Integer({ description: "The merchant's users: its API user" }),
    file_count: Integer(),
  },
  { title: "TeamSummary" },
);
