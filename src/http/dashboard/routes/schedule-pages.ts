/** The invoice schedule pages: the list of live schedules, and one schedule with the invoices it made. */
import { Elysia, t } from "elysia";
import { shortId } from "../layout";
import { schedulePage, schedulesPage } from "../pages/schedules";
import type { InvoiceView } from "../../../services/dashboard";
import { dashboardList, dashboardPlugin, ID, type DashboardKit } from "./kit";

/** The invoices a schedule's page lists: its newest ones. */
const SHOWN_INVOICES = 50;

/** /dashboard/schedules and /dashboard/schedules/{id}. */
export function schedulePages(kit: DashboardKit) {
  const { deps, service, respond, notFoundPage } = kit;
  const { invoiceSchedules } = deps.services;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get(
      "/dashboard/schedules",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/schedules", request, {
          title: "Invoice schedules",
          body: schedulesPage(
            await dashboardList(query.page, request, (page) => invoiceSchedules.list(merchant.id, {}, page)),
          ),
        }),
      { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
    )
    .get(
      "/dashboard/schedules/:id",
      async ({ merchant, params, request }) => {
        const path = "/dashboard/schedules";
        const schedule = await invoiceSchedules.get(merchant.id, params.id).catch(() => undefined);
        if (!schedule) return notFoundPage(merchant, path, request, "Invoice schedule");
        const invoices: InvoiceView[] = [];
        for (const id of schedule.invoice_ids.slice(-SHOWN_INVOICES).reverse()) {
          const invoice = await service.invoice(merchant.id, id);
          if (invoice) invoices.push(invoice);
        }
        return respond(merchant, path, request, {
          title: `Schedule ${shortId(schedule.id)}`,
          body: schedulePage(schedule, invoices),
        });
      },
      { params: ID },
    );
}
