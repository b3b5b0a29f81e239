/**
 * paysandbox/testing — start, drive and inspect the sandbox from a test suite (bun test, Vitest,
 * Jest, node:test, Playwright Test). The public contract of the toolkit: written by hand so it
 * reads as documentation, and checked against the implementation by `tsc` (testing/check-types.ts).
 *
 * @example
 * ```ts
 * import { startSandbox, cards } from "paysandbox/testing";
 *
 * const sandbox = await startSandbox();          // a free loopback port, a temporary database
 * const merchant = await sandbox.merchant();     // keys of its own: no other test sees its data
 * // … point the code under test at sandbox.url with merchant.apiKey / merchant.webPaymentsToken …
 * await merchant.clock.advance(2);               // two days on: batches settle, deposits land
 * const receipt = await merchant.outbox.waitFor({ to: "ada@example.com", subject: "Receipt" });
 * await sandbox.stop();
 * ```
 */

export * from "./types/test-data";
export * from "./types/controls";
import type { Faults, FixtureDocument, FixtureResult, Outcomes, Snapshot } from "./types/controls";

export interface StartSandboxOptions {
  /**
   * Extra command-line flags for the sandbox (`npm start -- --help` lists them), e.g.
   * `["--rate-limit", "10/150"]`. Calls with the same flags share one process.
   */
  args?: readonly string[];
  /**
   * Attach to a sandbox that is already running instead of starting one. Default:
   * `process.env.PAYSANDBOX_URL`; pass `null` to always start one.
   */
  url?: string | null;
  /** How long the sandbox may take to be ready before startSandbox() rejects; default 30 000 ms. */
  startTimeoutMs?: number;
  /** Copy the sandbox's request log (one line per request) to this process's stderr. */
  log?: boolean;
}

/** A merchant's sandbox clock: settlement batches, deposits and webhook retries run on it. */
export interface Clock {
  /**
   * Moves the merchant's clock forward by `days` (fractions allowed: `1 / 24` is an hour) and runs
   * every job the time crosses: card batches at each midnight UTC, ACH settlement, deposits, and
   * the webhook retry that is due. Never goes back.
   */
  advance(days: number): Promise<ClockAdvance>;
  /** The merchant's sandbox time, `YYYY-MM-DD HH:MM:SS` (UTC). */
  now(): Promise<string>;
}

export interface ClockAdvance {
  /** The merchant's sandbox time after the move. */
  now: string;
  /** What the crossed jobs did. */
  ran: { batches: number; settled: number; deposits: number };
}

/** An e-mail the sandbox sent (a receipt, a failed-payment notice…), as its outbox keeps it. */
export interface Email {
  id: string;
  kind: string;
  message_id: string;
  from: string;
  to: string;
  /** The copied addresses (the merchant's receipt_cc), [] for none. */
  cc: string[];
  /** The Reply-To address (the merchant's receipt_reply_to), null for none. */
  reply_to: string | null;
  subject: string;
  /** The plain-text part. */
  text: string;
  /** The HTML part. */
  html: string;
  invoice_id: string | null;
  transaction_id: string | null;
  created_at: string;
  /** The HTML part as a page, and the raw MIME message. */
  html_url: string;
  eml_url: string;
  /** Every link of the HTML part (the hosted invoice, the page to pay again…), in order. */
  links: string[];
}

export interface EmailMatch {
  /** The recipient (case-insensitive). */
  to?: string;
  /** Text the subject contains, or a pattern it matches. */
  subject?: string | RegExp;
  /** How long to wait; default 10 000 ms. */
  timeoutMs?: number;
}

/** The merchant's e-mail outbox. */
export interface Outbox {
  /**
   * The oldest e-mail matching `match` that this outbox has not returned before, waiting for it to
   * arrive. Rejects after `timeoutMs` with an error listing the e-mails that did arrive.
   */
  waitFor(match?: EmailMatch): Promise<Email>;
  /** Every e-mail of the merchant (to one recipient when `to` is given), oldest first. */
  list(filter?: { to?: string }): Promise<Email[]>;
}

/** A webhook the sandbox delivered whose signature verified with the merchant's webhook secret. */
export interface WebhookDelivery<T = Record<string, unknown>> {
  /** The PaySandbox-Event-Name header, e.g. "create_transaction". */
  event: string;
  /** The PaySandbox-Delivery-Id header: the same on every retry of a delivery. */
  deliveryId: string;
  /** The record: the parsed body. */
  record: T;
  /** The raw body, as signed. */
  body: string;
  /** The request headers, lower-case names. */
  headers: Record<string, string>;
}

export interface WebhookWaitOptions<T> {
  /** Only a delivery whose record passes this test. */
  where?: (record: T) => boolean;
  /** How long to wait; default 10 000 ms. */
  timeoutMs?: number;
}

/** A local HTTP endpoint subscribed to the merchant's webhooks, verifying every signature. */
export interface WebhookReceiver {
  /** Where the sandbox delivers (a loopback address). */
  readonly url: string;
  /** The id of the webhook subscription the receiver made. */
  readonly webhookId: string;
  /** Every verified delivery so far, in arrival order. */
  readonly deliveries: readonly WebhookDelivery[];
  /**
   * The first verified delivery of `event` (`"*"` for any) not returned before, waiting for it.
   * Rejects at once when such a delivery arrived with a signature that does not verify, and
   * after `timeoutMs` with an error listing what did arrive.
   */
  waitFor<T = Record<string, unknown>>(event: string, options?: WebhookWaitOptions<T>): Promise<WebhookDelivery<T>>;
  /** Deletes the subscription and closes the endpoint. */
  close(): Promise<void>;
}

export interface Webhooks {
  /**
   * Starts a receiver on a free loopback port and subscribes it to `events` (default `"*"`, every
   * event). It answers 200 to deliveries whose PaySandbox-Signature verifies, 400 to the rest.
   */
  receiver(options?: { events?: string }): Promise<WebhookReceiver>;
}

/** What a merchant can be made with. */
export interface MerchantOptions {
  name?: string;
  email?: string;
  settings?: {
    /** address_zip required and checked. */
    avs_zip?: boolean;
    /** address_1 required and checked. */
    avs_street?: boolean;
    /** Custom fields shown on invoices and e-mails. */
    advanced_customization?: boolean;
    /** Business days until ACH settles (default 2). */
    ach_settlement_days?: number;
    /** The merchant's invoice custom fields (shown with advanced_customization). */
    custom_fields?: Array<{
      id: string;
      name?: string;
      placeholder?: string;
      /** A merchant-key invoice must give it a value. */
      required?: boolean;
      type?: "text";
      /** false: shown on merchant-facing pages only. */
      visible?: boolean;
    }>;
    /** Reply-To of receipt e-mails ("" for none). */
    receipt_reply_to?: string;
    /** Addresses copied on every receipt e-mail (at most 5). */
    receipt_cc?: string[];
    /** A closing message on receipt e-mails (at most 500 characters). */
    receipt_footer?: string;
    /** false: a declined pay() sends no e-mail (default true). */
    receipt_send_declined?: boolean;
  };
}

/**
 * Fixtures and snapshots of one merchant.
 * @example
 * const { results } = await merchant.fixtures(doc);   // all or nothing: a failing step rejects, nothing kept
 * await merchant.snapshot("ready");
 * // … the test changes things …
 * await merchant.restore("ready");                    // back exactly: ids, timestamps, clock, outbox
 */
export interface MerchantState {
  /** Applies a fixture document as this merchant; rejects with the 422 naming the failing step. */
  fixtures<Results = Record<string, any>>(document: FixtureDocument): Promise<FixtureResult<Results>>;
  /** Takes a snapshot of this merchant's whole state (replacing one of the same name). */
  snapshot(name: string): Promise<Snapshot>;
  /** Puts this merchant's state back as the snapshot holds it. */
  restore(name: string): Promise<Snapshot>;
}

/** A merchant of its own: its records, e-mails, webhooks and clock are invisible to every other key. */
export interface Merchant extends MerchantState {
  readonly id: string;
  readonly name: string;
  /** Secret: `Authorization: Bearer <apiKey>` on merchant routes. */
  readonly apiKey: string;
  /** Public: payjs, tokenize and the pay() steps. */
  readonly webPaymentsToken: string;
  /** Signs the merchant's webhook deliveries. */
  readonly webhookSecret: string;
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly webhooks: Webhooks;
  readonly outcomes: Outcomes;
  readonly faults: Faults;
}

/** The example checkout page (payjs card frames and a bank form), served on its own loopback origin. */
export interface CheckoutPage {
  /** Open this in the browser. */
  readonly url: string;
  close(): Promise<void>;
}

/** A running sandbox, started by this call, shared with an earlier one, or attached to PAYSANDBOX_URL. */
export interface Sandbox extends MerchantState {
  /** The API base URL, e.g. `http://localhost:41873`. */
  readonly url: string;
  /** The default merchant's API key. */
  readonly apiKey: string;
  /** The default merchant's web payments token. */
  readonly webPaymentsToken: string;
  /** "started": this call started the process; "shared": it reuses one this process started; "attached": PAYSANDBOX_URL. */
  readonly mode: "started" | "shared" | "attached";
  /** The default merchant's clock, outbox and webhooks (tests that share it see each other's data). */
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly webhooks: Webhooks;
  readonly outcomes: Outcomes;
  readonly faults: Faults;
  /** Makes a merchant with random keys of its own (POST /_sandbox/merchants): one per test or file, no reset needed. */
  merchant(options?: MerchantOptions): Promise<Merchant>;
  /** Serves the example checkout page for a merchant (default: the default merchant) on another origin. */
  checkoutPage(options?: { merchant?: Pick<Merchant, "webPaymentsToken"> }): Promise<CheckoutPage>;
  /**
   * Releases this handle: closes its receivers and pages. The process stops when the last handle
   * of this process is released (the calls are counted); an attached sandbox keeps running.
   */
  stop(): Promise<void>;
}

/**
 * Starts the sandbox — its own Bun (the `bun` package it depends on) runs it as a child process, on
 * a free loopback port with a temporary database — and resolves once it is ready. A second call
 * in the same process with the same `args` reuses that process. With `PAYSANDBOX_URL` set it
 * attaches to that sandbox instead. While it runs, `PAYSANDBOX_URL` is set in `process.env`, so
 * test workers started afterwards (a runner's global setup) attach to the same process.
 */
export declare function startSandbox(options?: StartSandboxOptions): Promise<Sandbox>;

/** The part of a Playwright `Page` that fillCard() uses. */
export interface PageLike {
  locator(selector: string): LocatorLike;
  readonly keyboard: { type(text: string, options?: { delay?: number }): Promise<void> };
}

/** The part of a Playwright `Locator` that fillCard() uses. */
export interface LocatorLike {
  waitFor(options?: { state?: "attached" | "detached" | "visible" | "hidden"; timeout?: number }): Promise<void>;
  click(options?: { timeout?: number }): Promise<void>;
  scrollIntoViewIfNeeded(options?: { timeout?: number }): Promise<void>;
  elementHandle(options?: { timeout?: number }): Promise<{
    contentFrame(): Promise<{ url(): string; waitForLoadState(state?: "load"): Promise<void> } | null>;
  } | null>;
  /** Runs in the page (never in the frame): fillCard() checks which element has the focus. */
  evaluate<R>(pageFunction: (element: HTMLElement | SVGElement) => R | Promise<R>): Promise<R>;
}

export interface FillCardOptions {
  /** The container of the card number frame (the `number.id` given to PayJs); default "#card-number". */
  number?: string;
  /** The container of the CVV frame (the `cvv.id` given to PayJs); default "#card-cvv". */
  cvv?: string;
  /** Milliseconds between key presses; default 15. */
  delay?: number;
  /** How long to wait for the frames; default 15 000 ms. */
  timeoutMs?: number;
}

/**
 * Types a card into the payjs secure frames as a person does: waits for the frames the page put in
 * its containers, clicks each one and types with the keyboard. It never looks inside the frames.
 *
 * @example
 * ```ts
 * await fillCard(page, cards.visa.approve);
 * await fillCard(page, { number: "4111 1111 1111 1111", cvv: "123" }, { number: "#my-number" });
 * ```
 */
export declare function fillCard(
  page: PageLike,
  card: { number: string; cvv?: string },
  options?: FillCardOptions,
): Promise<void>;
