import { Elysia, t } from "elysia";
import { listPage } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageOf, PageQuery } from "../../domain/schemas/records";
import {
  InvoiceScheduleBody,
  InvoiceScheduleListQuery,
  InvoiceScheduleRecord,
  InvoiceScheduleUpdateBody,
} from "../../domain/schemas/invoice-schedules";

const IdParams = t.Object({ id: t.String() });

/**
 * The merchant's invoice schedules (API key). Mounted before the invoice routes: its static
 * `/invoice/schedule` must not be read as `GET /invoice/{id}` with the id "schedule".
 */
export function invoiceScheduleRoutes(deps: AppDeps) {
  const { invoiceSchedules } = deps.services;
  return new Elysia({ prefix: "/invoice/schedule", tags: ["Invoice schedules"] })
    .use(merchantAuth(deps))
    .get(
      "",
      ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
          invoiceSchedules.list(
            merchant.id,
            { customerId: query.customer_id, sort: query.sort, order: query.order },
            page,
          ),
        ),
      {
        query: t.Object({ ...PageQuery, ...InvoiceScheduleListQuery }),
        response: { 200: PageOf(InvoiceScheduleRecord), ...AUTH_ERRORS },
        detail: { summary: "List invoice schedules (live ones; newest first unless sort/order say otherwise)" },
      },
    )
    .post(
      "",
      async ({ merchant, body, set }) => {
        set.status = 201;
        return invoiceSchedules.create(merchant.id, body);
      },
      {
        body: InvoiceScheduleBody,
        response: { 201: InvoiceScheduleRecord, ...AUTH_ERRORS },
        detail: {
          summary: "Create an invoice schedule: an invoice at every occurrence of an RRULE",
          description:
            "Each occurrence the merchant's sandbox clock passes makes an invoice (schedule_id set, create_invoice), e-mails it with email_notification (send_invoice), and charges payment_method_id when given (receipt e-mail, create_transaction). Emits create_scheduled_invoice. An impossible rule, UNTIL before DTSTART, an unknown or deleted customer or payment method: 422, nothing stored.",
        },
      },
    )
    .get("/:id", ({ merchant, params }) => invoiceSchedules.get(merchant.id, params.id), {
      params: IdParams,
      response: { 200: InvoiceScheduleRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get an invoice schedule with its next occurrences and the invoices it made" },
    })
    .put("/:id", ({ merchant, params, body }) => invoiceSchedules.update(merchant.id, params.id, body), {
      params: IdParams,
      body: InvoiceScheduleUpdateBody,
      response: { 200: InvoiceScheduleRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Edit an invoice schedule: rule, total, meta, payment method, pause or resume",
        description:
          "A field left out keeps its value. active false pauses it; true resumes from the next occurrence to come (those passed while paused are not run). A new rule starts from its first occurrence to come. A deleted schedule is a 422 invalid_state. Emits update_scheduled_invoice.",
      },
    })
    .delete("/:id", ({ merchant, params }) => invoiceSchedules.delete(merchant.id, params.id), {
      params: IdParams,
      response: { 200: InvoiceScheduleRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Delete an invoice schedule (soft: status DELETED; its invoices stay)",
        description: "No occurrence runs again. Emits delete_scheduled_invoice.",
      },
    });
}
