import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { pageOf } from "../page";
import { pageRequest, type PageRequest } from "../../domain/pagination";
import { AUTH_ERRORS, ErrorBody, PageQuery } from "../../domain/schemas/records";
import {
  LinkActiveAnswer,
  LinkAnswer,
  LinkDeleted,
  LinkIdParams,
  LinkListQuery,
  LinkPage,
  LinkStatsAnswer,
  LinkStatsBody,
  LinkWriteAnswer,
  PaymentLinkBody,
  PaymentLinkUpdateBody,
} from "../../domain/schemas/payment-links";
import type { PaymentLink } from "../../services/catalog/payment-links";
import type { Listing } from "../../domain/pagination";

const NOT_FOUND = { ...AUTH_ERRORS, 404: ErrorBody };

const list = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((k) => k.trim()).filter(Boolean);

/** The real list's envelope: Laravel's full paginator under `data`. */
function linkPage(listing: Listing<PaymentLink>, page: PageRequest, url: string) {
  const envelope = pageOf(listing, page, url);
  const path = url.split("?")[0]!;
  const at = (n: number) => {
    const link = new URL(url);
    link.searchParams.set("page", String(n));
    return link.toString();
  };
  return {
    data: {
      current_page: envelope.current_page,
      first_page_url: at(1),
      from: envelope.from,
      last_page: envelope.last_page,
      last_page_url: at(envelope.last_page),
      next_page_url: envelope.next_page_url,
      path,
      per_page: envelope.per_page,
      prev_page_url: envelope.prev_page_url,
      to: envelope.to,
      total: envelope.total,
      data: envelope.data,
    },
  };
}

/** The merchant's payment links (API key): docs/contract.md §5, "Payment links". */
export function paymentLinkRoutes(deps: AppDeps) {
  const { paymentLinks } = deps.services;
  return new Elysia({ prefix: "/query/payment-links", tags: ["Payment links"] })
    .use(merchantAuth(deps))
    .get(
      "",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const listing = await paymentLinks.list(
          merchant.id,
          {
            active: query.active === undefined ? undefined : query.active === "true" || query.active === "1",
            keywords: [...list(query.keywords), ...list(query["keywords[]"])],
            sort: query.sort ?? "created_at",
            order: query.order ?? "desc",
          },
          page,
        );
        return linkPage(listing, page, request.url);
      },
      {
        query: t.Object({ ...PageQuery, ...LinkListQuery }),
        response: { 200: LinkPage, ...AUTH_ERRORS },
        detail: { summary: "List and filter the live payment links (newest first by default)" },
      },
    )
    .post(
      "",
      async ({ merchant, body, set }) => {
        set.status = 201;
        return { status: 201, message: "Payment Link created", body: await paymentLinks.create(merchant.id, body) };
      },
      {
        body: PaymentLinkBody,
        response: { 201: LinkWriteAnswer, ...AUTH_ERRORS },
        detail: {
          summary: "Create a payment link (201); its page is tinyurl",
          description:
            "The amount comes from link_meta.lineItems naming catalog items (priced as an invoice's), else from link_meta.price × quantity + tax, else from amount or link_meta.total; a link whose total the customer enters (isTotalEditable) may have none. expires_at and max_uses (1: single-use) are the sandbox's.",
        },
      },
    )
    .get("/:id", async ({ merchant, params }) => ({ data: await paymentLinks.get(merchant.id, params.id) }), {
      params: LinkIdParams,
      response: { 200: LinkAnswer, ...NOT_FOUND },
      detail: { summary: "Get a payment link with its usage statistics" },
    })
    .put(
      "/:id",
      async ({ merchant, params, body }) => ({
        status: 200,
        message: "Payment Link updated",
        body: await paymentLinks.update(merchant.id, params.id, body),
      }),
      {
        params: LinkIdParams,
        body: PaymentLinkUpdateBody,
        response: { 200: LinkWriteAnswer, ...NOT_FOUND },
        detail: {
          summary: "Update (or deactivate: active false) a payment link",
          description: "The fields given change; link_meta, when given, replaces the stored one and is priced again.",
        },
      },
    )
    .delete(
      "/:id",
      async ({ merchant, params }) => {
        await paymentLinks.delete(merchant.id, params.id);
        return { status: 200, message: "Payment Link Deleted" };
      },
      {
        params: LinkIdParams,
        response: { 200: LinkDeleted, ...NOT_FOUND },
        detail: { summary: "Delete a payment link: its page stops taking payments; it leaves the API" },
      },
    )
    .get("/:id/is-active", async ({ merchant, params }) => paymentLinks.activity(merchant.id, params.id), {
      params: LinkIdParams,
      response: { 200: LinkActiveAnswer, ...NOT_FOUND },
      detail: {
        summary: "Whether a payment link can be paid now, on the merchant's sandbox clock",
        description:
          "reason: inactive (switched off), expired (expires_at passed), used_up (max_uses reached), or null.",
      },
    })
    .put(
      "/:id/update-stats",
      async ({ merchant, params, body }) => ({
        status: 200,
        message: "Payment Link Updated",
        body: await paymentLinks.addSale(merchant.id, params.id, body.total),
      }),
      {
        params: LinkIdParams,
        body: LinkStatsBody,
        response: { 200: LinkStatsAnswer, ...NOT_FOUND },
        detail: {
          summary: "Count a sale made through the link elsewhere",
          description:
            "A use, `total` added to its total sales, one more transaction. A link that cannot be paid now is a 422 invalid_state with its reason.",
        },
      },
    );
}
