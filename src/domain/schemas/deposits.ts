import { t } from "elysia";
import { Integer, Nullable, NullableTimestamp, PageOf, PageQuery, Timestamp, TransactionRecord } from "./records";

const Money = (description: string) => t.Number({ description });

/**
 * A deposit batch: the real service's deposit report fields (batch_id, display_batch_id,
 * batched_at, last_transaction, count, sum, avg, min, max, std, fees) and the sandbox's
 * reconciliation fields (gross, refunds, net, the deposit's dates).
 */
export const DepositRecord = t.Object(
  {
    id: t.String(),
    batch_id: t.String({ description: "The batch_id on every transaction of this deposit" }),
    display_batch_id: t.String({
      description: "CARD-YYYYMMDD or ACH-YYYYMMDD: the method and the day the batch closed",
    }),
    batched_at: Timestamp,
    last_transaction: NullableTimestamp,
    method: t.Union([t.Literal("card"), t.Literal("bank")]),
    settled_at: t.String({ description: "When the batch closed (a midnight UTC): its transactions' settled_at" }),
    deposit_date: t.String({ description: "YYYY-MM-DD the deposit lands" }),
    deposited_at: t.Union([t.String(), t.Null()], { description: "When it landed; null while pending" }),
    count: Integer({ description: "Transactions in the batch: sales and refunds (adjustments not counted)" }),
    sum: Money("Sum of the batch's amounts, refunds negative: gross − refunds"),
    avg: Money("Mean amount (refunds negative), rounded to the cent"),
    min: Money("Smallest amount (a refund counts negative)"),
    max: Money("Largest amount"),
    std: Money("Population standard deviation of the amounts, rounded to the cent"),
    gross: Money("Sum of the sales (charges and captures)"),
    refunds: Money("Sum of the refunds that settled in this batch"),
    fees: Money("Sum of the per-sale fees (card 2.9% + 0.30, ACH 0.8% capped at 5.00; none on refunds)"),
    adjustments: Money(
      "The signed sum of the adjustments this deposit picked up (ACH returns and their fees, dispute withdrawals and reversals; docs/settlement.md)",
    ),
    net: Money("gross − refunds − fees + adjustments; negative when what is withdrawn outweighs the sales"),
    created_at: t.String(),
  },
  { title: "Deposit", description: "A settlement batch and its deposit" },
);

/** The real service's deposit-detail fields, added to each transaction of a batch. */
export const DepositDetailFields = t.Object(
  {
    display_batch_id: t.String(),
    batched_at: Timestamp,
    transaction_id: t.String({ description: "The transaction's id (the same as id)" }),
    fees: Money("The processing fee this transaction paid (the same as fee)"),
    card_type: Nullable(t.String({ description: "visa, mastercard, …; null for bank" })),
    customer_firstname: t.String(),
    customer_lastname: t.String(),
    customer_email: t.String(),
    customer_company: t.String(),
    fee: Money("The processing fee this transaction paid in the batch"),
    net: Money(
      "What it adds to the deposit: total − fee for a sale, −total for a refund, the signed amount for an adjustment",
    ),
    adjustment_id: Nullable(t.String({ description: "On an adjustment's row: its id (the row's id too); else null" })),
    adjustment_kind: Nullable(
      t.String({ description: "On an adjustment's row: ach_return, return_fee, dispute, …; null on a transaction's" }),
    ),
    adjustment_code: Nullable(t.String({ description: "On an adjustment's row: its return code or dispute reason" })),
  },
  { title: "DepositDetailFields" },
);

/**
 * One row of a deposit: a transaction of its batch (the transaction record plus the deposit-detail
 * fields), or an adjustment it picked up (the record of the transaction it concerns, with the
 * adjustment's id, effective time as created_at, absolute amount as total, and the adjustment fields).
 */
export const DepositDetailItem = t.Composite([TransactionRecord, DepositDetailFields], { title: "DepositDetail" });

export const DateParam = t.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}$",
  description: "YYYY-MM-DD (UTC), inclusive",
});

/** Query members the real service's clients send that the sandbox accepts and ignores (dates are UTC). */
const CLIENT_EXTRAS = {
  timezone: t.Optional(t.String({ description: "Accepted and ignored: dates are UTC" })),
  timezoneOffset: t.Optional(t.String({ description: "Accepted and ignored: dates are UTC" })),
};

export const DepositQuery = t.Object({
  ...PageQuery,
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
  ...CLIENT_EXTRAS,
});

export const DepositDetailQuery = t.Object({
  ...PageQuery,
  batch_id: t.Optional(t.String({ minLength: 1, description: "One batch (pending or landed)" })),
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
  ...CLIENT_EXTRAS,
});

export const DepositPage = PageOf(DepositRecord);
/** depositDetail?batch_id=: that batch's rows and its deposit. */
export const DepositBatchDetailPage = t.Composite([PageOf(DepositDetailItem), t.Object({ deposit: DepositRecord })], {
  title: "DepositBatchDetailPage",
});
/** depositDetail?startDate=&endDate=: the rows of every deposit /query/deposit lists for that range. */
export const DepositDetailPage = t.Union([DepositBatchDetailPage, PageOf(DepositDetailItem)], {
  title: "DepositDetailResponse",
});

/**
 * One funding instruction of GET /transaction/{id}/funding: a row of the transaction's family that
 * settled (the sale, a capture or a refund), with the batch that carried it and that batch's deposit.
 * The real service's fields first (the sandbox has no sub-accounts: account_id is always null),
 * then the sandbox's.
 */
export const FundingRecord = t.Object(
  {
    id: t.String({ description: "The settled row: the transaction itself, or its capture or refund" }),
    transaction_id: t.String({ description: "The transaction asked about" }),
    invoice_id: Nullable(t.String()),
    engine_settlement_id: t.String({ description: "The batch that carried the row (batch_id)" }),
    engine_transaction_id: t.String({ description: "Same as id" }),
    account_id: t.Null({ description: "The sandbox funds one account per merchant: always null" }),
    amount: Money("What the row adds to the deposit: a sale positive, a refund or a credit negative, before fees"),
    memo: Nullable(t.String({ description: "The transaction's meta.memo, if any" })),
    meta: t.Null(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: t.Null(),
    type: t.Union([t.Literal("charge"), t.Literal("capture"), t.Literal("refund"), t.Literal("credit")]),
    fee: Money("The processing fee the row paid (0 for a refund or a credit)"),
    batch_id: t.String(),
    display_batch_id: t.String(),
    settled_at: Timestamp,
    deposit_id: t.String(),
    deposit_date: t.String({ description: "YYYY-MM-DD the deposit lands (or landed)" }),
    deposited_at: Nullable(Timestamp),
  },
  { title: "Funding" },
);
