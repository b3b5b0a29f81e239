/**
 * The deposit adjustments as the dashboard shows them (an ACH return and its fee, a dispute's
 * withdrawal, fee and reversal): on the deposits page and on a transaction's page.
 */
import type { AdjustmentRow } from "../../../services/adjustments";
import { html, type Renderable } from "../../../lib/html";
import { badge, emptyState, idText, money, when } from "../layout";

const KIND_WORDS: Record<string, string> = {
  ach_return: "ACH return",
  return_fee: "Return fee",
  dispute: "Dispute",
  dispute_fee: "Dispute fee",
  dispute_reversal: "Dispute reversal",
};

/** A table of adjustments; `withTransaction` adds a column linking each to its transaction. */
export function adjustmentsTable(rows: readonly AdjustmentRow[], withTransaction: boolean, empty: string): Renderable {
  if (rows.length === 0) return emptyState(empty);
  return html`<table class="adjustments">
    <thead>
      <tr>
        <th>Kind</th>
        <th>Code</th>
        ${withTransaction ? html`<th>Transaction</th>` : ""}
        <th>Takes effect</th>
        <th>Deposit</th>
        <th class="num">Amount</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr data-kind="${row.kind}" data-id="${row.id}">
            <td>${KIND_WORDS[row.kind] ?? row.kind}</td>
            <td>${row.code ? html`<code>${row.code}</code>` : ""} ${row.description}</td>
            ${
              withTransaction
                ? html`<td>
                    ${
                      row.transaction_id
                        ? html`<a class="mono" href="/dashboard/transactions/${encodeURIComponent(row.transaction_id)}"
                            >${row.transaction_id}</a
                          >`
                        : ""
                    }
                  </td>`
                : ""
            }
            <td>${when(row.effective_at)}</td>
            <td>${row.deposit_id ? idText(row.deposit_id, "deposit id") : badge("next deposit", "warn")}</td>
            <td class="num">${money(Number(row.amount_cents), "cents")}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
