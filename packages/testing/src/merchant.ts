/**
 * Per-merchant helpers: the sandbox clock, the e-mail outbox and webhook receivers. Each acts on
 * the merchant whose API key it holds, so tests with their own merchant never see each other.
 */
import type * as Public from "../index";
import { DEFAULT_WAIT_MS, poll, requestJson } from "./http";
import { startReceiver } from "./webhooks";

/** What a merchant's helpers need: where the sandbox is, whose key, and where to register things to close. */
export interface MerchantContext {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  /** Receivers and pages register their close() here; the sandbox handle runs them on stop(). */
  track(close: () => Promise<void>): void;
}

export function clockOf(context: MerchantContext): Public.Clock {
  return {
    async advance(days) {
      if (typeof days !== "number" || !Number.isFinite(days) || days < 0) {
        throw new TypeError(`clock.advance() expects a number of days ≥ 0, got ${String(days)}`);
      }
      const result = await requestJson<Public.ClockAdvance>(context.baseUrl, "POST", "/_sandbox/clock/advance", {
        apiKey: context.apiKey,
        body: { seconds: Math.round(days * 86_400) },
      });
      return { now: result.now, ran: result.ran };
    },
    async now() {
      const state = await requestJson<{ now: string }>(context.baseUrl, "GET", "/_sandbox/clock", {
        apiKey: context.apiKey,
      });
      return state.now;
    },
  };
}

type EmailRecord = Omit<Public.Email, "links">;

/** Every href of an HTML part, in order, with HTML entities in them decoded. */
export function linksOf(html: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
    const raw = match[1] ?? match[2] ?? "";
    links.push(
      raw
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&#39;|&#x27;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">"),
    );
  }
  return links;
}

function describeMatch(match: Public.EmailMatch): string {
  const parts = [];
  if (match.to) parts.push(`to ${match.to}`);
  if (match.subject !== undefined)
    parts.push(
      `with a subject ${typeof match.subject === "string" ? `containing "${match.subject}"` : `matching ${String(match.subject)}`}`,
    );
  return parts.length ? parts.join(" ") : "of any kind";
}

export function outboxOf(context: MerchantContext): Public.Outbox {
  const returned = new Set<string>();

  const list = async (filter: { to?: string } = {}): Promise<Public.Email[]> => {
    const emails: Public.Email[] = [];
    for (let page = 1; ; page++) {
      const query = new URLSearchParams({ per_page: "100", page: String(page) });
      if (filter.to) query.set("to", filter.to);
      const answer = await requestJson<{ data: EmailRecord[]; last_page: number }>(
        context.baseUrl,
        "GET",
        `/_sandbox/emails?${query}`,
        { apiKey: context.apiKey },
      );
      for (const email of answer.data) emails.push({ ...email, links: linksOf(email.html) });
      if (page >= answer.last_page) break;
    }
    // The route lists newest first; tests read mail in the order it was sent.
    return emails.reverse();
  };

  return {
    list,
    async waitFor(match = {}) {
      const timeoutMs = match.timeoutMs ?? DEFAULT_WAIT_MS;
      const subjectMatches = (subject: string) =>
        match.subject === undefined
          ? true
          : typeof match.subject === "string"
            ? subject.includes(match.subject)
            : match.subject.test(subject);
      const email = await poll(
        async () =>
          (await list({ to: match.to })).find((email) => !returned.has(email.id) && subjectMatches(email.subject)),
        timeoutMs,
        async () => {
          const arrived = await list();
          const seen = arrived.length
            ? arrived
                .map(
                  (email) =>
                    `  - to ${email.to}: "${email.subject}"${returned.has(email.id) ? " (returned before)" : ""}`,
                )
                .join("\n")
            : "  (none)";
          return new Error(
            `paysandbox: no e-mail ${describeMatch(match)} arrived within ${timeoutMs} ms. The merchant's outbox holds ${arrived.length}:\n${seen}`,
          );
        },
      );
      returned.add(email.id);
      return email;
    },
  };
}

export function webhooksOf(context: MerchantContext): Public.Webhooks {
  return {
    async receiver(options = {}) {
      const receiver = await startReceiver({
        baseUrl: context.baseUrl,
        apiKey: context.apiKey,
        webhookSecret: context.webhookSecret,
        events: options.events ?? "*",
      });
      context.track(() => receiver.close());
      return receiver;
    },
  };
}

/** The payment method id of an id or a record. */
function paymentMethodId(method: string | { id: string }, what: string): string {
  const id = typeof method === "string" ? method : method?.id;
  if (typeof id !== "string" || id === "") {
    throw new TypeError(`${what} expects a payment method id or record, got ${JSON.stringify(method)}`);
  }
  return id;
}

export function outcomesOf(context: MerchantContext): Public.Outcomes {
  return {
    async next(method, outcomes) {
      return requestJson<Public.PendingOutcomes>(context.baseUrl, "POST", "/_sandbox/outcomes", {
        apiKey: context.apiKey,
        body: { payment_method_id: paymentMethodId(method, "outcomes.next()"), outcomes },
      });
    },
    async pending() {
      const answer = await requestJson<{ data: Public.PendingOutcomes[] }>(
        context.baseUrl,
        "GET",
        "/_sandbox/outcomes",
        {
          apiKey: context.apiKey,
        },
      );
      return answer.data;
    },
    async clear(method) {
      const query =
        method === undefined
          ? ""
          : `?payment_method_id=${encodeURIComponent(paymentMethodId(method, "outcomes.clear()"))}`;
      const answer = await requestJson<{ cleared: number }>(context.baseUrl, "DELETE", `/_sandbox/outcomes${query}`, {
        apiKey: context.apiKey,
      });
      return answer.cleared;
    },
  };
}

export function faultsOf(context: MerchantContext): Public.Faults {
  return {
    async next(route, options) {
      if (typeof route !== "string")
        throw new TypeError(`faults.next() expects a route such as "POST /charge", got ${JSON.stringify(route)}`);
      return requestJson<Public.Fault>(context.baseUrl, "POST", "/_sandbox/faults", {
        apiKey: context.apiKey,
        body: { route, kind: options?.kind, count: options?.count, latency_ms: options?.latencyMs },
      });
    },
    async list() {
      return requestJson<{ pending: Public.Fault[]; fired: Public.FiredFault[] }>(
        context.baseUrl,
        "GET",
        "/_sandbox/faults",
        {
          apiKey: context.apiKey,
        },
      );
    },
    async clear() {
      const answer = await requestJson<{ cleared: number }>(context.baseUrl, "DELETE", "/_sandbox/faults", {
        apiKey: context.apiKey,
      });
      return answer.cleared;
    },
  };
}

/** A snapshot name as the route takes it (1-64 letters, digits, _ . -, starting with a letter or digit). */
function snapshotName(name: unknown, what: string): string {
  if (typeof name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new TypeError(
      `${what} expects a name of 1 to 64 letters, digits, '_', '.' or '-' starting with a letter or digit, got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** Fixtures and snapshots of the merchant (POST /_sandbox/fixtures, /_sandbox/snapshots). */
export function stateOf(context: MerchantContext): Pick<Public.Merchant, "fixtures" | "snapshot" | "restore"> {
  return {
    async fixtures(document) {
      if (!document || typeof document !== "object" || !Array.isArray(document.steps)) {
        throw new TypeError(`merchant.fixtures() expects a document {steps: [...]}, got ${JSON.stringify(document)}`);
      }
      return requestJson(context.baseUrl, "POST", "/_sandbox/fixtures", { apiKey: context.apiKey, body: document });
    },
    async snapshot(name) {
      return requestJson<Public.Snapshot>(context.baseUrl, "POST", "/_sandbox/snapshots", {
        apiKey: context.apiKey,
        body: { name: snapshotName(name, "merchant.snapshot()") },
      });
    },
    async restore(name) {
      const path = `/_sandbox/snapshots/${snapshotName(name, "merchant.restore()")}/restore`;
      return requestJson<Public.Snapshot>(context.baseUrl, "POST", path, { apiKey: context.apiKey });
    },
  };
}
