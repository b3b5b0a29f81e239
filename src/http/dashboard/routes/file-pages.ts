/** The pages of what comes after the charge: files (and, with them, the disputes' evidence). */
import { Elysia, t } from "elysia";
import { filesPage } from "../pages/files";
import { dashboardList, dashboardPlugin, type DashboardKit } from "./kit";

export function filePages(kit: DashboardKit) {
  const { deps, respond } = kit;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } }).use(dashboardPlugin(kit)).get(
    "/dashboard/files",
    async ({ merchant, query, request }) =>
      respond(merchant, "/dashboard/files", request, {
        title: "Files",
        body: filesPage(
          await dashboardList(query.page, request, (page) => deps.services.files.list(merchant.id, {}, page)),
        ),
      }),
    { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
  );
}
