import { Elysia, t } from "elysia";
import { listPage } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import {
  AUTH_ERRORS,
  CustomerRecord,
  ErrorBody,
  PageOf,
  PageQuery,
  PaymentMethodRecord,
} from "../../domain/schemas/records";
import { CustomerBody } from "../../domain/schemas/customers";

const IdParams = t.Object({ id: t.String() });
const NOT_FOUND = { ...AUTH_ERRORS, 404: ErrorBody };

export function customerRoutes(deps: AppDeps) {
  const { customers, paymentMethods } = deps.services;
  return new Elysia({ prefix: "/customer", tags: ["Customers"] })
    .use(merchantAuth(deps))
    .get(
      "",
      async ({ merchant, query, request }) =>
        listPage(query, request, (page) => customers.list(merchant.id, { keywords: query.keywords }, page)),
      {
        query: t.Object({ ...PageQuery, keywords: t.Optional(t.String()) }),
        response: { 200: PageOf(CustomerRecord), ...AUTH_ERRORS },
        detail: { summary: "List customers (newest first; deleted ones left out)" },
      },
    )
    .post("", async ({ merchant, body }) => customers.create(merchant.id, body), {
      body: CustomerBody,
      response: { 200: CustomerRecord, ...AUTH_ERRORS },
      detail: { summary: "Create a customer" },
    })
    .get("/:id", async ({ merchant, params }) => customers.get(merchant.id, params.id), {
      params: IdParams,
      response: { 200: CustomerRecord, ...NOT_FOUND },
      detail: { summary: "Get a customer (deleted ones too, with deleted_at set)" },
    })
    .put("/:id", async ({ merchant, params, body }) => customers.update(merchant.id, params.id, body), {
      params: IdParams,
      body: CustomerBody,
      response: { 200: CustomerRecord, ...NOT_FOUND },
      detail: { summary: "Update the given fields of a customer" },
    })
    .delete("/:id", async ({ merchant, params }) => customers.delete(merchant.id, params.id), {
      params: IdParams,
      response: { 200: CustomerRecord, ...NOT_FOUND },
      detail: { summary: "Soft-delete a customer" },
    })
    .get(
      "/:id/payment-method",
      async ({ merchant, params }) => paymentMethods.listForCustomer(merchant.id, params.id),
      {
        params: IdParams,
        response: { 200: t.Array(PaymentMethodRecord), ...NOT_FOUND },
        detail: { summary: "The customer's payment methods (deleted ones left out)" },
      },
    );
}
