/**
 * The dashboard's actions on records: capture, void, refund and receipts of a transaction; adding,
 * changing, deleting, testing webhooks and redelivering. Same-origin JSON only: the app's pipeline
 * refuses the rest (src/http/pipeline/sandbox-controls.ts checkCrossSite).
 */
import { Elysia, t } from "elysia";
import { ValidationFailed } from "../../../domain/errors";
import { formatMoney } from "../../../domain/money";
import { parseTotalCents } from "../../../../packages/rules/validation";
import { ACTION_RESPONSES, dashboardPage, dashboardPath, dashboardPlugin, ID, type DashboardKit } from "./kit";

const AmountBody = t.Object({ total: t.Optional(t.String({ maxLength: 30 })) });

/** The POST actions under `/dashboard/transactions/{id}` and `/dashboard/webhooks`. */
export function recordActions(kit: DashboardKit) {
  const { deps, service } = kit;
  const { transactions, webhooks } = deps.services;
  const { receipts } = deps.services;

  /** A money operation as POST /transaction/{id}/… runs it: the transaction service, in one immediate transaction. */
  const operate = async (merchantId: string, id: string, action: "capture" | "void" | "refund", total?: string) => {
    let cents: number | undefined;
    if (total !== undefined && total.trim() !== "") {
      const parsed = parseTotalCents(total.trim());
      if ("error" in parsed) throw new ValidationFailed({ total: [parsed.error] });
      cents = parsed.cents;
    }
    return transactions.operate(merchantId, id, action, cents);
  };

  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .post(
      "/dashboard/transactions/:id/capture",
      async ({ merchant, params, body }) => {
        const record = await operate(merchant.id, params.id, "capture", body.total);
        const captured = record.child_transactions.find((c) => c.type === "capture");
        return { message: `Captured ${formatMoney(Math.round((captured?.total ?? 0) * 100))}.` };
      },
      { params: ID, body: AmountBody, response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/transactions/:id/void",
      async ({ merchant, params }) => {
        const record = await operate(merchant.id, params.id, "void");
        return { message: `Voided ${formatMoney(Math.round(record.total * 100))}.` };
      },
      { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/transactions/:id/refund",
      async ({ merchant, params, body }) => {
        const record = await operate(merchant.id, params.id, "refund", body.total);
        const last = record.child_transactions.filter((c) => c.type === "refund").at(-1);
        return { message: `Refunded ${formatMoney(Math.round((last?.total ?? 0) * 100))}.` };
      },
      { params: ID, body: AmountBody, response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/transactions/:id/receipt-email",
      async ({ merchant, params, body }) => {
        await receipts.emailTransaction(merchant.id, params.id, body.email);
        const sent = (await service.emails(merchant.id, dashboardPage(), undefined, { transactionId: params.id }))
          .rows[0];
        return { message: `Receipt e-mailed${sent ? ` to ${sent.to_address}` : ""}.` };
      },
      { params: ID, body: t.Object({ email: t.Optional(t.String({ maxLength: 254 })) }), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/transactions/:id/receipt-sms",
      async ({ merchant, params, body }) => {
        const record = await receipts.smsTransaction(merchant.id, params.id, body.phone);
        const to = body.phone?.trim() || record.payment_method.customer.phone;
        return { message: `Receipt texted to ${to}.` };
      },
      { params: ID, body: t.Object({ phone: t.Optional(t.String({ maxLength: 40 })) }), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/webhooks",
      async ({ merchant, body }) => {
        const hook = await webhooks.create(merchant.id, body);
        return { message: `Added: ${hook.target_url} receives ${hook.event === "*" ? "every event" : hook.event}.` };
      },
      {
        body: t.Object({ target_url: t.String({ maxLength: 4096 }), event: t.String({ maxLength: 60 }) }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/webhooks/:id/update",
      async ({ merchant, params, body }) => {
        const disabled = body.disabled === undefined ? undefined : body.disabled === true || body.disabled === "true";
        const hook = await webhooks.update(merchant.id, params.id, {
          target_url: body.target_url,
          event: body.event,
          disabled,
        });
        return {
          message:
            disabled === undefined ? "Saved." : hook.disabled_at ? "Disabled: it receives nothing new." : "Enabled.",
        };
      },
      {
        params: ID,
        body: t.Object({
          target_url: t.Optional(t.String({ maxLength: 4096 })),
          event: t.Optional(t.String({ maxLength: 60 })),
          disabled: t.Optional(t.Union([t.Boolean(), t.Literal("true"), t.Literal("false")])),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/webhooks/:id/delete",
      async ({ merchant, params }) => {
        const hook = await webhooks.delete(merchant.id, params.id);
        return { message: `Deleted the webhook to ${hook.target_url}.`, redirect: "/dashboard/webhooks" };
      },
      { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/webhooks/:id/test",
      async ({ merchant, params }) => {
        const delivery = await webhooks.sendTest(merchant.id, params.id);
        return { message: "Test event queued.", redirect: `/dashboard/webhooks/deliveries/${delivery.id}` };
      },
      { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/webhooks/redeliver",
      async ({ merchant, body }) => {
        await service.redeliver(merchant.id, body.delivery_id);
        // Back only to a dashboard page: the form's value never sends the browser elsewhere.
        return { redirect: dashboardPath(body.back, "/dashboard/webhooks") };
      },
      {
        body: t.Object({ delivery_id: t.String({ maxLength: 100 }), back: t.Optional(t.String({ maxLength: 500 })) }),
        response: ACTION_RESPONSES,
      },
    );
}
