import { t } from "elysia";
import { PageOf, PageQuery, TransactionRecord } from "../models";

const Money = (description: string) => t.Number({ description });

export const DepositRecord = t.Object(
  {
    id: t.String(),
    batch_id: t.String({ description: "The batch_id on every transaction of this deposit" }),
    method: t.Union([t.Literal("card"), t.Literal("bank")]),
    settled_at: t.String({ description: "When the batch closed (a midnight UTC): its transactions' settled_at" }),
    deposit_date: t.String({ description: "YYYY-MM-DD the deposit lands" }),
    deposited_at: t.Union([t.String(), t.Null()], { description: "When it landed; null while pending" }),
    count: t.Integer({ description: "Transactions in the batch: sales and refunds" }),
    gross: Money("Sum of the sales (charges and captures)"),
    refunds: Money("Sum of the refunds that settled in this batch"),
    fees: Money("Sum of the per-sale fees (card 2.9% + 0.30, ACH 0.8% capped at 5.00; none on refunds)"),
    net: Money("gross − refunds − fees; negative when refunds outweigh sales"),
    created_at: t.String(),
  },
  { title: "Deposit" },
);

export const DepositDetailItem = t.Composite(
  [
    TransactionRecord,
    t.Object({
      fee: Money("The processing fee this transaction paid in the batch"),
      net: Money("What it adds to the deposit: total − fee for a sale, −total for a refund"),
    }),
  ],
  { title: "DepositDetail" },
);

export const DateParam = t.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}$",
  description: "YYYY-MM-DD (UTC), inclusive",
});

export const DepositQuery = t.Object({
  ...PageQuery,
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
});

export const DepositDetailQuery = t.Object({
  ...PageQuery,
  batch_id: t.String({ minLength: 1, description: "The batch_id of a deposit" }),
});

export const DepositPage = PageOf(DepositRecord);
export const DepositDetailPage = t.Composite([PageOf(DepositDetailItem), t.Object({ deposit: DepositRecord })], {
  title: "DepositDetailPage",
});
