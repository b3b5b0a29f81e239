/**
 * The dashboard's webhook pages: the endpoints with their forms, the deliveries with
 * GET /_sandbox/webhook-deliveries' filters, and one delivery with every attempt.
 */
import type { DeliveryView, WebhookView } from "../../../services/dashboard";
import type { Page } from "../../page";
import { EVENT_NAMES } from "../../../domain/events";
import { MAX_ATTEMPTS } from "../../../domain/webhook-policy";
import { html, queryString, type Renderable, type SafeHtml } from "../../../lib/html";
import { actionButton, badge, command, copyable, emptyState, fields, idLink, idText, pager, when } from "../layout";
import type { Hints } from "./hints";

function deliveryStatus(status: string): SafeHtml {
  return badge(
    status,
    status === "delivered" ? "ok" : status === "failed" ? "bad" : status === "pending" ? "warn" : "",
  );
}

const deliveryPath = (id: string) => `/dashboard/webhooks/deliveries/${encodeURIComponent(id)}`;

/** Deliveries with their last result and a redeliver button; `back` is where redeliver returns to. */
export function deliveriesTable(deliveries: readonly DeliveryView[], back: string): SafeHtml {
  if (deliveries.length === 0) return emptyState("No deliveries.");
  return html`<table class="deliveries">
    <thead>
      <tr>
        <th>Delivery</th>
        <th>Created</th>
        <th>Event</th>
        <th>Record</th>
        <th>Target</th>
        <th>Status</th>
        <th>Attempts</th>
        <th><span class="sr-only">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (d) =>
          html`<tr data-id="${d.id}" data-status="${d.status}">
            <td>${idLink(deliveryPath(d.id), d.id, "delivery id")}</td>
            <td>${when(d.created_at)}</td>
            <td>${d.event}</td>
            <td>${idText(d.record_id, "record id")}</td>
            <td class="mono">${d.target_url}</td>
            <td>
              ${deliveryStatus(d.status)}${d.redelivery_of ? html` <span class="muted">redelivery</span>` : ""}${d.next_attempt_at && d.status === "pending" ? html`<br /><span class="muted">next ${when(d.next_attempt_at)}</span>` : ""}
            </td>
            <td>
              ${d.attempts}/${d.max_attempts}${d.attempt_log.map(
                (a) =>
                  html`<div class="muted">
                    #${a.attempt} ${when(a.started_at)} →
                    ${a.status_code ?? a.error ?? "…"}${a.latency_ms !== null ? ` (${a.latency_ms} ms)` : ""}
                  </div>`,
              )}
            </td>
            <td>
              <a href="${deliveryPath(d.id)}">Details</a>
              ${actionButton("/dashboard/webhooks/redeliver", "Redeliver", { delivery_id: d.id, back })}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The events a webhook can subscribe to: every event the sandbox sends, or all of them. */
const EVENT_CHOICES = ["*", ...EVENT_NAMES];

function eventSelect(id: string, value: string): SafeHtml {
  return html`<select name="event" id="${id}">
    ${EVENT_CHOICES.map(
      (e) =>
        html`<option value="${e}" ${e === value ? html` selected` : ""}>${e === "*" ? "* (every event)" : e}</option>`,
    )}
  </select>`;
}

/** The webhook's retry schedule in words (POST /webhook meta). */
function retryText(meta: WebhookView["meta"]): string {
  const count = meta.webhook_retry_count ?? MAX_ATTEMPTS - 1;
  const every =
    meta.webhook_retry_frequency === null ? "backing off to 1 h" : `every ${meta.webhook_retry_frequency} min`;
  return count === 0 ? "no retries" : `${count} ${count === 1 ? "retry" : "retries"}, ${every}`;
}

function webhookRow(h: WebhookView): SafeHtml {
  const base = `/dashboard/webhooks/${encodeURIComponent(h.id)}`;
  return html`<tr data-id="${h.id}" data-state="${h.disabled_at ? "disabled" : "enabled"}">
    <td>${idText(h.id, "webhook id")}</td>
    <td>${h.event}</td>
    <td class="mono">${h.target_url}</td>
    <td>
      ${h.disabled_at ? badge("disabled", "warn") : badge("enabled", "ok")}<br /><span class="muted retries"
        >${retryText(h.meta)}</span
      >
    </td>
    <td>${when(h.created_at)}</td>
    <td>
      <div class="row">
        ${actionButton(`${base}/test`, "Send test event", {})}
        ${actionButton(`${base}/update`, h.disabled_at ? "Enable" : "Disable", { disabled: h.disabled_at ? "false" : "true" })}
        ${actionButton(`${base}/delete`, "Delete", {}, { danger: true, confirm: `Delete the webhook to ${h.target_url}? Its pending deliveries are cancelled.` })}
      </div>
      <details class="edit">
        <summary>Edit</summary>
        <form method="post" novalidate action="${base}/update" class="stack" id="edit-${h.id}">
          <label>Target URL <input name="target_url" type="url" value="${h.target_url}" required /></label>
          <label>Event ${eventSelect(`edit-event-${h.id}`, h.event)}</label>
          <div class="row"><button type="submit" class="primary">Save</button></div>
          <span class="result" role="status"></span>
        </form>
      </details>
    </td>
  </tr>`;
}

/** The deliveries list's filters: every filter of GET /_sandbox/webhook-deliveries, same names. */
export interface DeliveryFilterValues {
  status?: string;
  event?: string;
  webhook_id?: string;
  record_id?: string;
}

export function webhooksPage(
  hooks: readonly WebhookView[],
  deliveries: Page<DeliveryView>,
  filters: DeliveryFilterValues,
  hints: Hints,
): Renderable {
  const subscribe = `curl -s ${hints.publicUrl}/webhook -H 'Authorization: Bearer ${hints.apiKey}' -H 'Content-Type: application/json' \\
  -d '{"target_url":"http://127.0.0.1:4000/hooks","event":"*"}'`;
  return html`<h1>Webhooks</h1>
    <section class="card">
      <h2>Add an endpoint</h2>
      <form method="post" novalidate action="/dashboard/webhooks" class="row" id="webhook-create">
        <label class="grow"
          >Target URL <input name="target_url" type="url" placeholder="http://127.0.0.1:4000/hooks" size="40" required
        /></label>
        <label>Event ${eventSelect("create-event", "*")}</label>
        <button type="submit" class="primary">Add endpoint</button>
        <span class="result" role="status"></span>
      </form>
    </section>
    ${
      hooks.length === 0
        ? emptyState(html`No endpoints yet. Add one above, or with curl:`, command(subscribe, "subscribe command"))
        : html`<table class="webhooks">
            <thead>
              <tr>
                <th>Id</th>
                <th>Event</th>
                <th>Target</th>
                <th>State</th>
                <th>Created</th>
                <th><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${hooks.map(webhookRow)}
            </tbody>
          </table>`
    }
    <h2>Deliveries</h2>
    <form class="filters" method="get" action="/dashboard/webhooks" aria-label="Filter deliveries">
      <label
        >Status
        <select name="status">
          <option value="">Any</option>
          ${["pending", "delivered", "failed", "cancelled"].map(
            (s) => html`<option value="${s}" ${s === filters.status ? html` selected` : ""}>${s}</option>`,
          )}
        </select></label
      >
      <label
        >Event
        <select name="event">
          <option value="">Any</option>
          ${[...EVENT_CHOICES.slice(1), "test"].map(
            (e) => html`<option value="${e}" ${e === filters.event ? html` selected` : ""}>${e}</option>`,
          )}
        </select></label
      >
      <label>Webhook id <input name="webhook_id" value="${filters.webhook_id ?? ""}" size="12" /></label>
      <label>Record id <input name="record_id" value="${filters.record_id ?? ""}" size="12" /></label>
      <button type="submit">Filter</button> <a href="/dashboard/webhooks">Clear</a>
    </form>
    ${deliveriesTable(deliveries.data, `/dashboard/webhooks${queryString({ ...filters })}`)}
    ${pager("/dashboard/webhooks", deliveries, { ...filters })}`;
}

function headersTable(headers: Record<string, string>, caption: string): SafeHtml {
  const entries = Object.entries(headers);
  if (entries.length === 0) return html`<p class="muted">None recorded.</p>`;
  return html`<table class="headers">
    <caption class="sr-only">
      ${caption}
    </caption>
    <tbody>
      ${entries.map(
        ([name, value]) =>
          html`<tr>
            <td>${name}</td>
            <td class="mono">${value}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A response body, pretty-printed when it is JSON. */
function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * One delivery: who it went to and what became of it, then every attempt's answer and timing
 * (newest first), then the signed payload, collapsed: a record's JSON is often taller than all
 * the rest, and Stripe's event pages fold it the same way.
 */
export function deliveryPage(d: DeliveryView, options: { showBodies: boolean }): Renderable {
  const payload = JSON.stringify(d.payload, null, 2);
  const attempts = [...d.attempt_log].reverse();
  return html`<h1>Delivery ${d.event} ${deliveryStatus(d.status)}</h1>
    <section class="card">
      ${fields([
        ["Delivery id", copyable(d.id, "delivery id")],
        ["Webhook id", copyable(d.webhook_id, "webhook id")],
        ["Record id", copyable(d.record_id, "record id")],
        ["Target", html`<code>${d.target_url}</code>`],
        ["Created", when(d.created_at)],
        ["Delivered", when(d.delivered_at)],
        ["Attempts", `${d.attempts} of ${d.max_attempts}`],
        ["Next attempt", d.status === "pending" ? when(d.next_attempt_at) : ""],
        ["Last error", d.last_error],
        [
          "Redelivery of",
          d.redelivery_of ? html`<a href="${deliveryPath(d.redelivery_of)}">${d.redelivery_of}</a>` : "",
        ],
      ])}
      <div class="row">
        ${actionButton("/dashboard/webhooks/redeliver", "Redeliver", { delivery_id: d.id, back: deliveryPath(d.id) }, { primary: true })}
        <a href="/dashboard/webhooks${queryString({ webhook_id: d.webhook_id })}">All deliveries of this webhook</a>
      </div>
    </section>
    <h2>Attempts</h2>
    ${
      attempts.length === 0
        ? emptyState(
            d.status === "pending"
              ? "Not sent yet: it goes out when due (advance the clock to send retries now)."
              : "No attempt was made.",
          )
        : attempts.map(
            (a) =>
              html`<section class="card attempt-card" data-attempt="${String(a.attempt)}">
                <h3>
                  Attempt ${a.attempt} ·
                  ${a.status_code !== null ? badge(`HTTP ${a.status_code}`, a.success ? "ok" : "bad") : badge(a.error ?? "no answer yet", "bad")}
                </h3>
                ${fields([
                  ["Started", when(a.started_at)],
                  ["Took", a.latency_ms !== null ? `${a.latency_ms} ms` : "still out"],
                  ["Error", a.error],
                ])}
                <div class="grid">
                  <div>
                    <h4>Request headers</h4>
                    ${headersTable(a.request_headers, `Request headers of attempt ${a.attempt}`)}
                  </div>
                  <div>
                    <h4>Response headers</h4>
                    ${a.response_headers ? headersTable(a.response_headers, `Response headers of attempt ${a.attempt}`) : html`<p class="muted">No answer.</p>`}
                  </div>
                </div>
                <h4>Response body</h4>
                ${
                  !options.showBodies
                    ? html`<p class="muted">
                        Not shown: this target is not on the allowlist of targets whose answers the sandbox shows.
                      </p>`
                    : a.response_snippet
                      ? html`<pre class="response-body" tabindex="0">${prettyBody(a.response_snippet)}</pre>`
                      : html`<p class="muted">Empty.</p>`
                }
              </section>`,
          )
    }
    <details class="payload">
      <summary>
        <h2>Signed payload</h2>
        <span class="muted">the body of every attempt, as JSON</span>
      </summary>
      <p class="muted">
        The exact bytes were signed: verify <code>PaySandbox-Signature</code> against the raw body, not this
        pretty-printed copy.
      </p>
      ${command(payload, "payload")}
    </details>`;
}
