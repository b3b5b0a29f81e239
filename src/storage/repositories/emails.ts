/**
 * The outboxes: every e-mail (with its raw MIME and relay state) and every text message the
 * sandbox sent. Newest first is by seq, which grows with each message.
 */
import { rowsOfTable, sql, writeBehind, type Executor, type Sql, type WriteBatch } from "../database";
import { sameMerchant } from "./keys";

export type RelayStatus = "off" | "pending" | "sent" | "failed" | "blocked";

export interface EmailRow {
  id: string;
  merchant_id: string;
  kind: string;
  message_id: string;
  /** The From display name (the merchant's name when it was sent). */
  from_name: string;
  from_address: string;
  to_address: string;
  /** JSON array of the Cc addresses. */
  cc_addresses: string;
  reply_to: string;
  subject: string;
  text: string;
  html: string;
  /** The MIME message; "" until it is first needed (Mailer.raw composes and stores it). */
  raw: string;
  invoice_id: string | null;
  transaction_id: string | null;
  relay_status: RelayStatus;
  relay_error: string | null;
  relayed_at: string | null;
  created_at: string;
  seq: number;
}

export interface SmsRow {
  id: string;
  merchant_id: string;
  to_phone: string;
  body: string;
  transaction_id: string | null;
  created_at: string;
  seq: number;
}

export type NewEmail = Omit<EmailRow, "seq" | "relayed_at">;

export interface EmailFilters {
  /** Only messages to this address (case-insensitive). */
  to?: string;
  /** Only messages to addresses containing this text (case-insensitive; the dashboard's search). */
  toContains?: string;
  transactionId?: string;
  invoiceId?: string;
}

/**
 * The next outbox number of `emails` or `sms`: MAX(seq) + 1 on SQLite, whose one writer makes it
 * new; on PostgreSQL the table's sequence (migration 036), as two transactions at once would read
 * the same MAX.
 */
function nextNumber(ex: Executor, table: "emails" | "sms"): Sql {
  return ex.dialect === "postgres"
    ? sql.raw(`nextval('${table}_numbers')`)
    : sql.raw(`(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table})`);
}

function emailInsert(ex: Executor, row: NewEmail): Sql {
  return sql`INSERT INTO emails (id, merchant_id, kind, message_id, from_name, from_address, to_address, cc_addresses,
          reply_to, subject, text, html, raw, invoice_id, transaction_id, relay_status, relay_error, created_at, seq)
        VALUES (${row.id}, ${row.merchant_id}, ${row.kind}, ${row.message_id}, ${row.from_name}, ${row.from_address},
          ${row.to_address}, ${row.cc_addresses}, ${row.reply_to}, ${row.subject}, ${row.text}, ${row.html}, ${row.raw},
          ${row.invoice_id}, ${row.transaction_id}, ${row.relay_status}, ${row.relay_error}, ${row.created_at},
          ${nextNumber(ex, "emails")})`;
}

/** Stores an e-mail and answers the row as stored (its outbox number), in the same statement. */
export async function insertEmail(ex: Executor, row: NewEmail): Promise<EmailRow> {
  return (await ex.get<EmailRow>(sql`${emailInsert(ex, row)} RETURNING *`))!;
}

/** The columns {@link emailBatch} writes from its rows; seq is drawn per row, relayed_at left NULL. */
const EMAIL_COLUMNS = sql.raw(`id, merchant_id, kind, message_id, from_name, from_address, to_address, cc_addresses,
  reply_to, subject, text, html, raw, invoice_id, transaction_id, relay_status, relay_error, created_at`);

/**
 * holdEmail's row among those of concurrent units' e-mails (a merchant's receipt and invoice e-mails), all written by one
 * INSERT (PostgreSQL's group commit): rows of the table's type from one JSON parameter. Each row
 * draws its own outbox number from the sequence, in the batch's order (the rows come out of WITH
 * ORDINALITY in order, and PostgreSQL evaluates a volatile output column after any ORDER BY), so the
 * numbers stay unique and grow in the order the units ended.
 */
function emailBatch(row: NewEmail): WriteBatch {
  return {
    key: "holdEmail",
    row: { ...row },
    select: rowsOfTable("emails"),
    insert: (source) => sql`INSERT INTO emails (${EMAIL_COLUMNS}, seq)
      SELECT ${EMAIL_COLUMNS}, nextval('emails_numbers') FROM ${source} ORDER BY _row`,
  };
}

/**
 * Stores an e-mail the caller built, whose outbox number nobody reads back: nothing waits on it, so
 * PostgreSQL sends it with the unit of work's next statement or its COMMIT (writeBehind), as one
 * statement with the unit's other independent writes (it reads no table they write), and with the
 * e-mails of units ending at the same time (its batch form).
 */
export async function holdEmail(ex: Executor, row: NewEmail): Promise<void> {
  await writeBehind(ex, emailInsert(ex, row), { independent: true, batch: emailBatch(row) });
}

/**
 * Stores an e-mail's composed MIME unless it has one already (two first readers may compose at
 * once: the first stored wins, and both answer it).
 */
export async function setEmailRaw(ex: Executor, id: string, raw: string): Promise<void> {
  await ex.run(sql`UPDATE emails SET raw = ${raw} WHERE id = ${id} AND raw = ''`);
}

export function findEmail(ex: Executor, id: string): Promise<EmailRow | undefined> {
  return ex.get(sql`SELECT * FROM emails WHERE id = ${id}`);
}

/** An e-mail of this merchant, or undefined. */
export function findMerchantEmail(ex: Executor, merchantId: string, id: string): Promise<EmailRow | undefined> {
  return ex.get(sql`SELECT * FROM emails WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

export function latestEmail(ex: Executor, merchantId: string): Promise<EmailRow | undefined> {
  return ex.get(sql`SELECT * FROM emails WHERE merchant_id = ${merchantId} ORDER BY seq DESC LIMIT 1`);
}

function emailWhere(merchantId: string, filters: EmailFilters): Sql {
  const both = Boolean(filters.transactionId && filters.invoiceId);
  // With both ids, the OR below names the merchant on each side instead.
  const where = both ? [] : [sql`merchant_id = ${merchantId}`];
  if (filters.to) where.push(sql`lower(to_address) = lower(${filters.to})`);
  if (filters.toContains) {
    const pattern = `%${filters.toContains.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(sql`lower(to_address) LIKE ${pattern} ESCAPE '\\'`);
  }
  // A transaction's e-mails include its invoice's (the receipt of the payment that paid it).
  if (both) {
    // Each side of the OR names the merchant, so each is one index seek (emails_of_transaction,
    // emails_of_invoice) instead of a walk over every e-mail of the merchant.
    where.push(
      sql`((merchant_id = ${merchantId} AND transaction_id = ${filters.transactionId}) OR (merchant_id = ${merchantId} AND invoice_id = ${filters.invoiceId}))`,
    );
  } else if (filters.transactionId) where.push(sql`transaction_id = ${filters.transactionId}`);
  else if (filters.invoiceId) where.push(sql`invoice_id = ${filters.invoiceId}`);
  return sql.join(where, " AND ");
}

export async function countEmails(ex: Executor, merchantId: string, filters: EmailFilters): Promise<number> {
  const row = await ex.get<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM emails WHERE ${emailWhere(merchantId, filters)}`,
  );
  return Number(row?.n ?? 0);
}

/** E-mails, newest first. */
export function listEmails(
  ex: Executor,
  merchantId: string,
  filters: EmailFilters,
  limit: number,
  offset: number,
): Promise<EmailRow[]> {
  return ex.all(
    sql`SELECT * FROM emails WHERE ${emailWhere(merchantId, filters)} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** Records the relay's outcome: sent (with when), or failed with why. */
export async function setRelayResult(
  ex: Executor,
  id: string,
  result: { status: "sent"; at: string } | { status: "failed"; error: string },
): Promise<void> {
  if (result.status === "sent") {
    await ex.run(
      sql`UPDATE emails SET relay_status = 'sent', relay_error = NULL, relayed_at = ${result.at} WHERE id = ${id}`,
    );
  } else {
    // relayed_at says when the relay accepted the message; a failed relay never did.
    await ex.run(
      sql`UPDATE emails SET relay_status = 'failed', relay_error = ${result.error}, relayed_at = NULL WHERE id = ${id}`,
    );
  }
}

/** E-mails stored but not relayed yet, oldest first. */
export function pendingRelays(ex: Executor): Promise<EmailRow[]> {
  return ex.all(sql`SELECT * FROM emails WHERE relay_status = 'pending' ORDER BY seq`);
}

export async function insertSms(
  ex: Executor,
  row: { id: string; merchantId: string; to: string; body: string; transactionId: string | null; createdAt: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO sms (id, merchant_id, to_phone, body, transaction_id, created_at, seq)
        VALUES (${row.id}, ${row.merchantId}, ${row.to}, ${row.body}, ${row.transactionId}, ${row.createdAt},
          ${nextNumber(ex, "sms")})`,
  );
}

export function findSms(ex: Executor, id: string): Promise<SmsRow | undefined> {
  return ex.get(sql`SELECT * FROM sms WHERE id = ${id}`);
}

function smsWhere(merchantId: string, to: string | undefined): Sql {
  return to ? sql`merchant_id = ${merchantId} AND lower(to_phone) = lower(${to})` : sql`merchant_id = ${merchantId}`;
}

export async function countSms(ex: Executor, merchantId: string, to?: string): Promise<number> {
  const row = await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM sms WHERE ${smsWhere(merchantId, to)}`);
  return Number(row?.n ?? 0);
}

/** Text messages, newest first. */
export function listSms(ex: Executor, merchantId: string, to: string | undefined, limit: number, offset: number) {
  return ex.all<SmsRow>(
    sql`SELECT * FROM sms WHERE ${smsWhere(merchantId, to)} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}
