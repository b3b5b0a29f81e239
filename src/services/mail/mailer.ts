/**
 * The e-mail outbox. Every message is stored with its parts when it is sent; its raw MIME is
 * composed by nodemailer (its stream transport gives the bytes) the first time it is needed (the
 * `.eml`, the relay) and stored, so every later read gets the same bytes. Composing took most of
 * the pay() path's CPU and memory, and most sandbox receipts are never opened as MIME. When an SMTP
 * relay is configured (--smtp) the message is composed and relayed asynchronously: a relay failure
 * is recorded on the message and never reaches the request that caused it.
 */
import type { Transporter } from "nodemailer";
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/emails";
import type { EmailFilters, EmailRow, NewEmail, SmsRow } from "../../storage/repositories/emails";
import type { Listing, PageRequest } from "../../domain/pagination";
import { parseTimestamp } from "../../domain/time";

/** nodemailer is loaded with the first e-mail, not at start: importing it costs ~18 MB of resident memory. */
let nodemailerModule: Promise<typeof import("nodemailer")> | undefined;
const loadNodemailer = () => (nodemailerModule ??= import("nodemailer"));
import type { Logger } from "../../lib/logger";

export interface OutgoingEmail {
  merchantId: string;
  kind: "receipt" | "receipt_failed" | "transaction_receipt" | "invoice" | "dispute";
  from: { name: string; address: string };
  to: string;
  /** Copies (Cc), e.g. the merchant's receipt_cc. */
  cc?: readonly string[];
  /** Reply-To; "" or absent for none. */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  invoiceId?: string | null;
  transactionId?: string | null;
}

export type { EmailFilters, EmailRow, NewEmail, SmsRow } from "../../storage/repositories/emails";

/** The address receipts come from; the merchant's name is the display name. */
export const SENDER_ADDRESS = "receipts@paysandbox.localhost";

/** nodemailer options for an smtp:// or smtps:// URL, with bounded timeouts so a dead relay fails fast. */
/** How long the relay waits for a connection, the server's greeting, and a quiet socket (ms). */
export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  socketMs: number;
}

export const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 5_000, greetingMs: 5_000, socketMs: 10_000 };

export function smtpOptions(url: string, timeouts: SmtpTimeouts = SMTP_TIMEOUTS) {
  const parsed = new URL(url);
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") {
    throw new Error(`--smtp expects smtp://host:port or smtps://host:port, got ${url}`);
  }
  const secure = parsed.protocol === "smtps:";
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 25,
    secure,
    auth: parsed.username
      ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
      : undefined,
    // Local catchers (mailpit, smtp-server) present self-signed certificates.
    tls: { rejectUnauthorized: false },
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
  };
}

/** The Cc addresses a stored message went out with. */
export function ccOf(row: Pick<EmailRow, "cc_addresses">): string[] {
  try {
    const list = JSON.parse(row.cc_addresses ?? "[]");
    return Array.isArray(list) ? list.filter((a): a is string => typeof a === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Domains reserved for examples and tests (RFC 2606, RFC 6761): no real person receives mail there,
 * so --smtp relays to them without --smtp-allow.
 */
const RESERVED_DOMAINS = /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$/i;

/** Why an e-mail was stored but not relayed; shown as its relay_error. */
export function relayBlockedMessage(to: string): string {
  return `Not relayed: ${to} is not an allowed recipient. Reserved test domains (example.com, *.test, …) are relayed; start with --smtp-allow ${to} (or @domain, or *) to relay to it.`;
}

/**
 * Which recipients --smtp relays to: reserved test domains, and the --smtp-allow entries
 * (ADDRESS, @DOMAIN, *). With the public web payments token anyone can make the sandbox e-mail a
 * receipt; through a real relay that would be an open relay to any address.
 */
export function relayAllows(allow: readonly string[], to: string): boolean {
  const address = to.trim().toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  if (RESERVED_DOMAINS.test(domain)) return true;
  return allow.some((entry) => {
    const rule = entry.toLowerCase();
    return rule === "*" || rule === address || (rule.startsWith("@") && rule.slice(1) === domain);
  });
}

/**
 * The e-mail and SMS outboxes. Vocabulary (docs/architecture.md, "Services"): `send`, `sendSms`;
 * `findEmail` (the merchant's, or undefined), `findEmailOfAnyMerchant`, `findLatestEmail`,
 * `listEmails` and `listTexts` (a page); `raw` (an e-mail's MIME).
 */
export class Mailer {
  private composer: Transporter | null = null;
  private relay: Transporter | null = null;
  private readonly pending = new Set<Promise<void>>();
  /** The relay's timeouts; set before the first relayed message (tests shorten them). */
  timeouts: SmtpTimeouts = { ...SMTP_TIMEOUTS };

  constructor(
    private readonly db: Database,
    private readonly options: { smtpUrl: string; smtpAllow?: readonly string[]; log: Logger; now: () => string },
  ) {
    if (options.smtpUrl) smtpOptions(options.smtpUrl); // a bad URL is a start-up error, not a silent one
  }

  /**
   * Stores the message (the outbox row exists when this resolves), with what `alongside` writes in
   * the same unit of work (a receipt marks its invoice sent), then starts the relay when one is
   * configured. Its Message-ID is fixed now; its raw MIME is composed when first needed. Nothing
   * waits on the stored row: on PostgreSQL the message and the independent writes beside it go as
   * one statement. Answers the row as stored, its outbox number (seq) aside.
   */
  async send(mail: OutgoingEmail, alongside?: (ex: Executor) => Promise<void>): Promise<NewEmail> {
    const row = this.rowOf(mail, this.options.now());
    await this.db.transaction(async (tx) => {
      await repo.holdEmail(tx, row);
      await alongside?.(tx);
    });
    this.relayStored(row);
    return row;
  }

  /**
   * Stores the message in the caller's unit of work `ex` (it commits or rolls back with the change
   * that sent it), dated `createdAt` (default: now). Not relayed yet: call relayStored() with the
   * row once the unit has committed (a relay left pending by a crash is resumed at start).
   */
  async store(ex: Executor, mail: OutgoingEmail, createdAt: string = this.options.now()): Promise<EmailRow> {
    return repo.insertEmail(ex, this.rowOf(mail, createdAt));
  }

  /**
   * Stores the message in the caller's unit of work `ex` with nothing waiting on it (on PostgreSQL
   * its row goes in the unit's own statement, with its other independent writes) and answers the
   * row, its outbox number (seq) aside. Not relayed yet: call relayStored() with it once the unit
   * has committed.
   */
  async hold(ex: Executor, mail: OutgoingEmail): Promise<NewEmail> {
    const row = this.rowOf(mail, this.options.now());
    await repo.holdEmail(ex, row);
    return row;
  }

  /** The outbox row of a message, dated `createdAt`. */
  private rowOf(mail: OutgoingEmail, createdAt: string): NewEmail {
    const relay = !this.options.smtpUrl
      ? "off"
      : relayAllows(this.options.smtpAllow ?? [], mail.to)
        ? "pending"
        : "blocked";
    return {
      id: crypto.randomUUID(),
      merchant_id: mail.merchantId,
      kind: mail.kind,
      // As nodemailer makes one: a UUID at the sender's domain.
      message_id: `<${crypto.randomUUID()}@${mail.from.address.slice(mail.from.address.lastIndexOf("@") + 1)}>`,
      from_name: mail.from.name,
      from_address: mail.from.address,
      to_address: mail.to,
      cc_addresses: JSON.stringify(mail.cc ?? []),
      reply_to: mail.replyTo ?? "",
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      raw: "",
      invoice_id: mail.invoiceId ?? null,
      transaction_id: mail.transactionId ?? null,
      relay_status: relay,
      relay_error: relay === "blocked" ? relayBlockedMessage(mail.to) : null,
      created_at: createdAt,
    };
  }

  /** Starts relaying a stored message, when a relay is configured and may send to it. */
  relayStored(row: NewEmail): void {
    if (row.relay_status === "pending") this.track(this.relayMessage(row));
  }

  /**
   * The message's raw MIME: the stored bytes, or composed from its stored parts (dated when it was
   * sent: its created_at) and stored on this first read.
   */
  async raw(row: NewEmail): Promise<string> {
    if (row.raw !== "") return row.raw;
    this.composer ??= (await loadNodemailer()).default.createTransport({
      streamTransport: true,
      buffer: true,
      newline: "windows",
    });
    const cc = ccOf(row);
    const info = await this.composer.sendMail({
      messageId: row.message_id,
      date: parseTimestamp(row.created_at),
      from: { name: row.from_name, address: row.from_address },
      to: row.to_address,
      cc: cc.length > 0 ? cc : undefined,
      replyTo: row.reply_to || undefined,
      subject: row.subject,
      text: row.text,
      html: row.html,
      headers: { "X-PaySandbox-Kind": row.kind },
    });
    await repo.setEmailRaw(this.db, row.id, (info.message as Buffer).toString("utf8"));
    return (await repo.findEmail(this.db, row.id))!.raw;
  }

  /** An e-mail of this merchant, or undefined. */
  findEmail(merchantId: string, id: string): Promise<EmailRow | undefined> {
    return repo.findMerchantEmail(this.db, merchantId, id);
  }

  /** An e-mail by id, any merchant's (a pasted outbox link), or undefined. */
  findEmailOfAnyMerchant(id: string): Promise<EmailRow | undefined> {
    return repo.findEmail(this.db, id);
  }

  /** The merchant's newest e-mail, or undefined. */
  findLatestEmail(merchantId: string): Promise<EmailRow | undefined> {
    return repo.latestEmail(this.db, merchantId);
  }

  /** The merchant's e-mails, newest first (GET /_sandbox/emails and the dashboard read the same list). */
  async listEmails(merchantId: string, filters: EmailFilters, page: PageRequest): Promise<Listing<EmailRow>> {
    const total = await repo.countEmails(this.db, merchantId, filters);
    const rows = await repo.listEmails(this.db, merchantId, filters, page.perPage, page.offset);
    return { rows, total };
  }

  /** The merchant's text messages, newest first; only those to `to` when given. */
  async listTexts(merchantId: string, to: string | undefined, page: PageRequest): Promise<Listing<SmsRow>> {
    const phone = to?.trim() || undefined;
    const total = await repo.countSms(this.db, merchantId, phone);
    const rows = await repo.listSms(this.db, merchantId, phone, page.perPage, page.offset);
    return { rows, total };
  }

  /** The envelope: the recipient, and the copies (Cc) the relay policy allows too (relayAllows). */
  private recipients(to: string, cc: readonly string[] = []): string[] {
    return [to, ...cc.filter((address) => relayAllows(this.options.smtpAllow ?? [], address))];
  }

  /**
   * Composes the message if it is not yet, then relays its stored bytes to every recipient (To and
   * Cc: the envelope, since the raw message is sent as is); records the outcome.
   */
  private async relayMessage(row: NewEmail): Promise<void> {
    const id = row.id;
    try {
      const raw = await this.raw(row);
      this.relay ??= (await loadNodemailer()).default.createTransport(smtpOptions(this.options.smtpUrl, this.timeouts));
      await this.relay.sendMail({
        envelope: { from: row.from_address, to: this.recipients(row.to_address, ccOf(row)) },
        raw,
      });
      await repo.setRelayResult(this.db, id, { status: "sent", at: this.options.now() });
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      this.options.log.error(`e-mail ${id}: relay to ${this.options.smtpUrl} failed: ${message}`);
      try {
        await repo.setRelayResult(this.db, id, { status: "failed", error: message });
      } catch (storeError) {
        this.options.log.error(`e-mail ${id}: the relay failure could not be recorded: ${String(storeError)}`);
      }
    }
  }

  private track(promise: Promise<void>): void {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  /** Resolves when every relay started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Stores an SMS in the SMS outbox (SMS is never relayed), in the caller's unit of work `ex`. */
  async sendSms(
    ex: Executor,
    sms: { merchantId: string; to: string; body: string; transactionId?: string | null },
  ): Promise<SmsRow> {
    const id = crypto.randomUUID();
    await repo.insertSms(ex, {
      id,
      merchantId: sms.merchantId,
      to: sms.to,
      body: sms.body,
      transactionId: sms.transactionId ?? null,
      createdAt: this.options.now(),
    });
    return (await repo.findSms(ex, id))!;
  }

  /**
   * Relays the messages stored but not relayed yet (the process stopped mid-relay). Returns how
   * many it started.
   */
  async resumePending(): Promise<number> {
    if (!this.options.smtpUrl) return 0;
    const rows = await repo.pendingRelays(this.db);
    for (const row of rows) this.track(this.relayMessage(row));
    return rows.length;
  }

  /**
   * The "mailer" worker: on start, relays what a previous run left pending; on stop, waits for
   * relays in flight and closes the SMTP pool.
   */
  worker() {
    return {
      name: "mailer",
      start: () => {
        this.track(
          this.resumePending().then(
            () => {},
            (error) => this.options.log.error(`e-mail relay could not resume: ${String(error)}`),
          ),
        );
      },
      stop: async () => {
        await this.idle();
        this.relay?.close();
        this.relay = null;
      },
    };
  }
}
