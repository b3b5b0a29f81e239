/**
 * What the dashboard's live refresh watches besides record events: a merchant's outboxes and
 * webhook deliveries, read from the database (so writes by any process count), each an index walk.
 */
import { sql, type Executor } from "../database";

export interface Activity {
  emails: number;
  sms: number;
  deliveries: number;
  pending: number;
  pendingAttempts: number;
  attemptsOut: number;
}

export async function merchantActivity(ex: Executor, merchantId: string): Promise<Activity> {
  const row = await ex.get<Record<keyof Activity, number | null>>(
    sql`SELECT
          (SELECT MAX(seq) FROM emails WHERE merchant_id = ${merchantId}) AS emails,
          (SELECT MAX(seq) FROM sms WHERE merchant_id = ${merchantId}) AS sms,
          (SELECT MAX(seq) FROM webhook_deliveries WHERE merchant_id = ${merchantId}) AS deliveries,
          (SELECT COUNT(*) FROM webhook_deliveries WHERE merchant_id = ${merchantId} AND status = 'pending') AS pending,
          (SELECT SUM(attempts) FROM webhook_deliveries WHERE merchant_id = ${merchantId} AND status = 'pending')
            AS "pendingAttempts",
          (SELECT COUNT(*) FROM webhook_attempts WHERE finished = 0 AND merchant_id = ${merchantId}) AS "attemptsOut"`,
  );
  return {
    emails: Number(row?.emails ?? 0),
    sms: Number(row?.sms ?? 0),
    deliveries: Number(row?.deliveries ?? 0),
    pending: Number(row?.pending ?? 0),
    pendingAttempts: Number(row?.pendingAttempts ?? 0),
    attemptsOut: Number(row?.attemptsOut ?? 0),
  };
}

/** The overview's totals of a merchant's top-level transactions. */
export interface TransactionTotals {
  n: number;
  /** Money moved: a charge's total, a pre_auth's captured amount (not what it authorized). */
  approvedCents: number;
  declined: number;
}

export async function transactionTotals(ex: Executor, merchantId: string): Promise<TransactionTotals> {
  const row = await ex.get<{ n: number; approved: number | null; declined: number | null }>(
    sql`SELECT COUNT(*) AS n,
          SUM(CASE WHEN success = 1 AND is_voided = 0
              THEN CASE WHEN type = 'pre_auth' THEN captured_cents ELSE total_cents END END) AS approved,
          SUM(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS declined
        FROM transactions WHERE merchant_id = ${merchantId} AND parent_id IS NULL`,
  );
  return { n: Number(row?.n ?? 0), approvedCents: Number(row?.approved ?? 0), declined: Number(row?.declined ?? 0) };
}
