import { Elysia, t } from "elysia";
import { listPage } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageOf, PageQuery } from "../../domain/schemas/records";
import {
  ItemBody,
  ItemCodes,
  ItemIdParams,
  ItemListQuery,
  ItemRecord,
  ItemUpdateBody,
  StockBody,
  StockQuery,
} from "../../domain/schemas/items";
import { priceCents } from "../../services/catalog/items";

const NOT_FOUND = { ...AUTH_ERRORS, 404: ErrorBody };
const flag = (value: string | undefined) => (value === undefined ? undefined : value === "true" || value === "1");

/** The merchant's catalog items (API key): docs/contract.md §5, "Catalog items". */
export function itemRoutes(deps: AppDeps) {
  const { items } = deps.services;
  return new Elysia({ prefix: "/item", tags: ["Catalog items"] })
    .use(merchantAuth(deps))
    .get(
      "",
      async ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
          items.list(
            merchant.id,
            {
              code: query.code,
              priceCents: query.price === undefined ? undefined : priceCents(query.price),
              minStock: query.quantity === undefined ? undefined : Number(query.quantity),
              isService: flag(query.is_service),
              isActive: flag(query.is_active),
              isTaxable: flag(query.is_taxable),
              isDiscount: flag(query.is_discount),
              name: query.name,
              description: query.description,
              meta: query.meta,
            },
            page,
          ),
        ),
      {
        query: t.Object({ ...PageQuery, ...ItemListQuery }),
        response: { 200: PageOf(ItemRecord), ...AUTH_ERRORS },
        detail: { summary: "List and search the live catalog items (newest first)" },
      },
    )
    .post("", async ({ merchant, body }) => items.create(merchant.id, body), {
      body: ItemBody,
      response: { 200: ItemRecord, ...AUTH_ERRORS },
      detail: {
        summary: "Create a catalog item",
        description: "A code already used by a live item is a 422 naming code. Emits create_item.",
      },
    })
    .get("/code", async ({ merchant }) => ({ data: await items.codes(merchant.id) }), {
      response: { 200: ItemCodes, ...AUTH_ERRORS },
      detail: {
        summary: "All item codes: the codes of the live items, sorted",
        description: "To find the item of one code: GET /item?code=….",
      },
    })
    .get("/:id", async ({ merchant, params }) => items.get(merchant.id, params.id), {
      params: ItemIdParams,
      response: { 200: ItemRecord, ...NOT_FOUND },
      detail: { summary: "Get an item (deleted ones too, with deleted_at set)" },
    })
    .put("/:id", async ({ merchant, params, body }) => items.update(merchant.id, params.id, body), {
      params: ItemIdParams,
      body: ItemUpdateBody,
      response: { 200: ItemRecord, ...NOT_FOUND },
      detail: {
        summary: "Update the given fields of an item",
        description: "A deleted item is a 422 invalid_state. Emits update_item.",
      },
    })
    .delete("/:id", async ({ merchant, params }) => items.delete(merchant.id, params.id), {
      params: ItemIdParams,
      response: { 200: ItemRecord, ...NOT_FOUND },
      detail: {
        summary: "Delete an item (soft: deleted_at set; still readable by id)",
        description:
          "It leaves the lists and codes; invoices and payment links can no longer name it. Emits delete_item.",
      },
    })
    .put(
      "/:id/increment",
      async ({ merchant, params, query, body }) =>
        items.increment(merchant.id, params.id, query.quantity ?? body?.quantity),
      {
        params: ItemIdParams,
        query: StockQuery,
        body: StockBody,
        response: { 200: ItemRecord, ...NOT_FOUND },
        detail: { summary: "Add `quantity` to an item's stock", description: "Emits update_item." },
      },
    )
    .put(
      "/:id/decrement",
      async ({ merchant, params, query, body }) =>
        items.decrement(merchant.id, params.id, query.quantity ?? body?.quantity),
      {
        params: ItemIdParams,
        query: StockQuery,
        body: StockBody,
        response: { 200: ItemRecord, ...NOT_FOUND },
        detail: {
          summary: "Take `quantity` from an item's stock",
          description:
            "The stock never goes below 0: taking more than there is is a 422 validation_error naming quantity, with `in_stock`, and changes nothing. Emits update_item.",
        },
      },
    );
}
