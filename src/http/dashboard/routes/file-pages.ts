/** The pages of what comes after the charge: files, and the disputes whose evidence they hold (under Files in the nav). */
import { Elysia, t } from "elysia";
import { filesPage } from "../pages/files";
import { disputeDetailPage, disputesPage } from "../pages/disputes";
import { dashboardList, dashboardPlugin, ID, type DashboardKit } from "./kit";

const PAGE_QUERY = t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) });

export function filePages(kit: DashboardKit) {
  const { deps, respond, notFoundPage } = kit;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get(
      "/dashboard/files",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/files", request, {
          title: "Files",
          body: filesPage(
            await dashboardList(query.page, request, (page) => deps.services.files.list(merchant.id, {}, page)),
          ),
        }),
      { query: PAGE_QUERY },
    )
    .get(
      "/dashboard/disputes",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/files", request, {
          title: "Disputes",
          body: disputesPage(
            await dashboardList(query.page, request, (page) => deps.services.disputes.list(merchant.id, {}, page)),
          ),
        }),
      { query: PAGE_QUERY },
    )
    .get(
      "/dashboard/disputes/:id",
      async ({ merchant, params, request }) => {
        const dispute = await deps.services.disputes.find(merchant.id, params.id);
        if (!dispute) return notFoundPage(merchant, "/dashboard/files", request, "Dispute");
        return respond(merchant, "/dashboard/files", request, {
          title: `Dispute ${dispute.reason}`,
          body: disputeDetailPage(dispute),
        });
      },
      { params: ID },
    );
}
