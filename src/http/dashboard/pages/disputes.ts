/**
 * The dashboard's disputes (under Files in the nav): the list, each dispute's page with its
 * evidence files, and the summary a transaction's page shows of its dispute.
 */
import type { DisputeRecord } from "../../../domain/schemas/disputes";
import type { Page } from "../../page";
import { html, type Renderable } from "../../../lib/html";
import { badge, emptyState, fields, idLink, idText, money, pager, when } from "../layout";
import { fileTable } from "./files";

const TONES: Record<string, "ok" | "bad" | "warn" | ""> = {
  PENDING: "warn",
  EVIDENCE_UPLOADED: "",
  WON: "ok",
  LOST: "bad",
};

export const disputePath = (id: string) => `/dashboard/disputes/${encodeURIComponent(id)}`;

export function disputeStatus(dispute: DisputeRecord): Renderable {
  return badge(dispute.status, TONES[dispute.status] ?? "");
}

export function disputesPage(page: Page<DisputeRecord>): Renderable {
  return html`<h1>Disputes</h1>
    <p class="muted">
      Cardholders' disputes of settled card payments (the disputed test cards of the Test cards page open one on the
      clock). Answer with <code>POST /file/dispute</code> and <code>POST /underwriting/dispute/{id}/submit</code> before
      the due date: evidence saying <code>winning_evidence</code> wins, <code>losing_evidence</code> loses.
    </p>
    ${
      page.total === 0
        ? emptyState("No disputes yet.")
        : html`<table class="disputes">
            <thead>
              <tr>
                <th>Dispute</th>
                <th>Opened</th>
                <th>Reason</th>
                <th>Status</th>
                <th class="num">Amount</th>
                <th>Respond by</th>
                <th>Transaction</th>
                <th class="num">Evidence</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (d) =>
                  html`<tr data-dispute="${d.id}" data-status="${d.status}">
                    <td>${idLink(disputePath(d.id), d.id, "dispute id")}</td>
                    <td>${when(d.created_at)}</td>
                    <td>${d.reason}</td>
                    <td>${disputeStatus(d)}</td>
                    <td class="num">${money(d.amount)}</td>
                    <td>${when(d.respond_by)}</td>
                    <td>
                      ${idLink(`/dashboard/transactions/${encodeURIComponent(d.transaction_id)}`, d.transaction_id, "transaction id")}
                    </td>
                    <td class="num">${d.files.length}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/disputes", page, {})}`;
}

/** The key facts of a dispute (its page, and a transaction's page). */
export function disputeFields(d: DisputeRecord): Renderable {
  return fields([
    ["Dispute", idText(d.id, "dispute id")],
    ["Status", disputeStatus(d)],
    ["Reason", html`${d.reason} <span class="muted">${d.reason_description}</span>`],
    ["Amount withdrawn", money(d.amount)],
    ["Dispute fee", money(d.fee)],
    ["Opened", when(d.created_at)],
    ["Respond by", when(d.respond_by)],
    ["Submitted", d.submitted_at ? when(d.submitted_at) : ""],
    ["Notes", d.notes ?? ""],
    [d.closed_at ? "Decided" : "Decision due", d.decision_at ? when(d.decision_at) : ""],
  ]);
}

export function disputeDetailPage(d: DisputeRecord): Renderable {
  return html`<h1>Dispute ${idText(d.id, "dispute id")}</h1>
    <p>
      <a href="/dashboard/disputes">All disputes</a> ·
      <a href="/dashboard/transactions/${encodeURIComponent(d.transaction_id)}">The disputed transaction</a>
    </p>
    ${disputeFields(d)}
    <h2>Evidence</h2>
    ${d.files.length === 0 ? emptyState("No evidence uploaded.") : fileTable(d.files, false)}`;
}

/** A transaction's page: its dispute, if it has one. */
export function transactionDispute(d: DisputeRecord | undefined): Renderable {
  if (!d) return "";
  return html`<h2>Dispute</h2>
    <p><a href="${disputePath(d.id)}">Open the dispute</a> (${d.files.length} evidence files)</p>
    ${disputeFields(d)}`;
}
