/** The catalog pages: the merchant's items and payment links, each a list and a detail page. */
import { Elysia, t } from "elysia";
import { itemPage, itemsPage, paymentLinkPage, paymentLinksPage } from "../pages/catalog";
import { dashboardList, dashboardPlugin, ID, text, type DashboardKit } from "./kit";

const PAGE_QUERY = { page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) };

export function catalogPages(kit: DashboardKit) {
  const { deps, respond, notFoundPage } = kit;
  const { items, paymentLinks } = deps.services;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get(
      "/dashboard/items",
      async ({ merchant, query, request }) => {
        const name = text(query.name);
        const page = await dashboardList(query.page, request, (page) => items.list(merchant.id, { name }, page));
        return respond(merchant, "/dashboard/items", request, { title: "Items", body: itemsPage(page, name ?? "") });
      },
      { query: t.Object({ name: t.Optional(t.String({ maxLength: 200 })), ...PAGE_QUERY }) },
    )
    .get(
      "/dashboard/items/:id",
      async ({ merchant, params, request }) => {
        const item = await items.find(merchant.id, params.id);
        if (!item) return notFoundPage(merchant, "/dashboard/items", request, "Item");
        return respond(merchant, "/dashboard/items", request, { title: item.item, body: itemPage(item) });
      },
      { params: ID },
    )
    .get(
      "/dashboard/payment-links",
      async ({ merchant, query, request }) => {
        const page = await dashboardList(query.page, request, (page) =>
          paymentLinks.list(merchant.id, { keywords: [], sort: "created_at", order: "desc" }, page),
        );
        return respond(merchant, "/dashboard/payment-links", request, {
          title: "Payment links",
          body: paymentLinksPage(page),
        });
      },
      { query: t.Object(PAGE_QUERY) },
    )
    .get(
      "/dashboard/payment-links/:id",
      async ({ merchant, params, request }) => {
        const link = await paymentLinks.find(merchant.id, params.id);
        if (!link) return notFoundPage(merchant, "/dashboard/payment-links", request, "Payment link");
        return respond(merchant, "/dashboard/payment-links", request, {
          title: link.common_name,
          body: paymentLinkPage(link),
        });
      },
      { params: ID },
    );
}
