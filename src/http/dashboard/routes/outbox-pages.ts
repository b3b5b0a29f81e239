/** What the sandbox sent: the e-mail and SMS outboxes, and the webhooks with every delivery. */
import { Elysia, t } from "elysia";
import { ApiError } from "../../../domain/errors";
import { EMAIL_VIEWS, emailsPage, smsPage, type EmailViewName } from "../pages/outbox";
import { emailParts } from "../email-parts";
import { deliveryPage, webhooksPage } from "../pages/webhooks";
import { DELIVERY_STATUSES } from "../../../domain/schemas/webhooks";
import { dashboardList, dashboardPlugin, ID, PAGE_HEADERS, pick, text, type DashboardKit } from "./kit";
import { shortId } from "../layout";

/** `/dashboard/emails`, `/dashboard/sms` and `/dashboard/webhooks`. */
export function outboxPages(kit: DashboardKit) {
  const { deps, service, respond, notFoundPage, hints } = kit;
  // The dispatcher's own rule decides whose answers the delivery view may show (docs/security.md).
  const targets = deps.services.webhookTargets;
  /** An e-mail of the merchant with its parts, for the view asked for; null when there is none. */
  const openEmail = async (merchantId: string, id: string, view: EmailViewName) => {
    const email = await service.email(merchantId, id);
    const row = email && (await deps.mailer.findEmail(merchantId, id));
    if (!email || !row) return null;
    return { email, view, parts: await emailParts(await deps.mailer.raw(row), email.html, deps.publicUrl) };
  };
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get(
      "/dashboard/emails",
      async ({ merchant, query, request }) => {
        const page = await dashboardList(query.page, request, (page) =>
          service.emails(merchant.id, page, text(query.to)),
        );
        const first = page.data[0] ?? null;
        const current = first && (await openEmail(merchant.id, first.id, "html"));
        return respond(merchant, "/dashboard/emails", request, {
          title: "E-mail outbox",
          body: emailsPage(page, current, text(query.to) ?? "", hints(merchant)),
        });
      },
      {
        query: t.Object({
          to: t.Optional(t.String({ maxLength: 200 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/emails/:id",
      async ({ merchant, params, query, request }) => {
        const current = await openEmail(merchant.id, params.id, query.view ?? "html");
        const path = "/dashboard/emails";
        if (!current) return notFoundPage(merchant, path, request, "E-mail");
        const page = await dashboardList(1, request, (page) => service.emails(merchant.id, page));
        return respond(merchant, path, request, {
          title: current.email.subject,
          body: emailsPage(page, current, "", hints(merchant)),
        });
      },
      { params: ID, query: t.Object({ view: t.Optional(t.UnionEnum(EMAIL_VIEWS)) }) },
    )
    .get(
      "/dashboard/emails/:id/body.html",
      async ({ merchant, params }) => {
        const email = await service.email(merchant.id, params.id);
        if (!email) throw new ApiError("not_found", "E-mail not found.");
        // Shown in a sandboxed frame of the dashboard: no script, no requests, only its own inline styles and data images.
        // Links open in a new tab (the frame may open popups, never run script or reach the dashboard).
        return new Response(`<base target="_blank">${email.html}`, {
          headers: {
            ...PAGE_HEADERS,
            "x-frame-options": "SAMEORIGIN",
            "content-security-policy":
              "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox",
          },
        });
      },
      { params: ID },
    )
    .get(
      "/dashboard/sms",
      async ({ merchant, query, request }) =>
        respond(merchant, "/dashboard/sms", request, {
          title: "SMS outbox",
          body: smsPage(
            await dashboardList(query.page, request, (page) => service.sms(merchant.id, page, text(query.to))),
            text(query.to) ?? "",
            hints(merchant),
          ),
        }),
      {
        query: t.Object({
          to: t.Optional(t.String({ maxLength: 40 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/webhooks",
      async ({ merchant, query, request }) => {
        const filters = {
          status: pick(query.status, DELIVERY_STATUSES),
          event: text(query.event),
          webhook_id: text(query.webhook_id),
          record_id: text(query.record_id),
        };
        const deliveries = await dashboardList(query.page, request, (page) =>
          service.deliveries(merchant.id, page, {
            status: filters.status,
            event: filters.event,
            webhookId: filters.webhook_id,
            recordId: filters.record_id,
          }),
        );
        return respond(merchant, "/dashboard/webhooks", request, {
          title: "Webhooks",
          body: webhooksPage(await service.webhooks(merchant.id), deliveries, filters, hints(merchant)),
        });
      },
      {
        query: t.Object({
          status: t.Optional(t.String({ maxLength: 30 })),
          event: t.Optional(t.String({ maxLength: 60 })),
          webhook_id: t.Optional(t.String({ maxLength: 100 })),
          record_id: t.Optional(t.String({ maxLength: 100 })),
          page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
        }),
      },
    )
    .get(
      "/dashboard/webhooks/deliveries/:id",
      async ({ merchant, params, request }) => {
        const path = "/dashboard/webhooks";
        const delivery = await service.delivery(merchant.id, params.id);
        if (!delivery) return notFoundPage(merchant, path, request, "Delivery");
        return respond(merchant, path, request, {
          title: `Delivery ${shortId(delivery.id)}`,
          body: deliveryPage(delivery, {
            showBodies: targets.showsBody(delivery.target_url),
          }),
        });
      },
      { params: ID },
    );
}
