/**
 * The dashboard's deposits page: the settlement batches' payouts.
 */
import type { DepositView } from "../../../services/dashboard";
import type { Page } from "../../page";
import type { AdjustmentRow } from "../../../services/adjustments";
import { adjustmentsTable } from "./adjustments";
import { html, queryString, type Renderable } from "../../../lib/html";
import { badge, emptyState, idText, money, pager, when } from "../layout";

export function depositsPage(page: Page<DepositView>, adjustments: readonly AdjustmentRow[]): Renderable {
  return html`<h1>Deposits</h1>
    <p class="muted">
      Card transactions batch when the sandbox clock crosses midnight UTC and deposit the next day; ACH settles after
      the merchant's settlement days. <a href="/dashboard/clock">Advance the clock</a> to see them.
    </p>
    ${
      page.total === 0
        ? emptyState("No settlement batches yet.")
        : html`<table class="deposits">
            <thead>
              <tr>
                <th>Batch</th>
                <th>Method</th>
                <th>Settled</th>
                <th>Deposit</th>
                <th>Status</th>
                <th class="num">Transactions</th>
                <th class="num">Gross</th>
                <th class="num">Refunds</th>
                <th class="num">Fees</th>
                <th class="num">Adjustments</th>
                <th class="num">Net</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (d) =>
                  html`<tr data-batch="${d.batch_id}">
                    <td>
                      <a class="mono" href="/dashboard/transactions${queryString({ batch_id: d.batch_id })}"
                        >${d.batch_id}</a
                      >
                      ${idText(d.batch_id, "batch id")}
                    </td>
                    <td>${d.method}</td>
                    <td>${when(d.settled_at)}</td>
                    <td>${when(d.deposit_at)}</td>
                    <td>${d.deposited_at ? badge("deposited", "ok") : badge("pending", "warn")}</td>
                    <td class="num">${d.transaction_count}</td>
                    <td class="num">${money(d.gross_cents, "cents")}</td>
                    <td class="num">${money(d.refunds_cents, "cents")}</td>
                    <td class="num">${money(d.fees_cents, "cents")}</td>
                    <td class="num">${money(Number(d.adjustments_cents), "cents")}</td>
                    <td class="num">${money(d.net_cents, "cents")}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/deposits", page, {})}
    <h2>Adjustments</h2>
    <p class="muted">
      Money moved besides sales and refunds (ACH returns and their fees, disputes), each taken by the first deposit
      landing at or after it (docs/settlement.md).
    </p>
    ${adjustmentsTable(adjustments, true, "No adjustments: no ACH return or dispute has moved money yet.")}`;
}
