import { Elysia, t } from "elysia";
import { ccOf, type EmailRow, type SmsRow } from "../../../services/mail/mailer";
import { listPage } from "../../page";
import type { AppDeps } from "../../deps";
import { notFound } from "../../../domain/errors";
import { ErrorBody, PageOf, PageQuery } from "../../../domain/schemas/records";
import { loopbackOnly, sandboxMerchant } from "./control";

const Timestamp = t.String({ description: "YYYY-MM-DD HH:MM:SS (UTC)" });
const NullableString = t.Union([t.String(), t.Null()]);

export const EmailRecord = t.Object({
  id: t.String(),
  kind: t.String({ description: "receipt | receipt_failed | transaction_receipt | invoice | dispute" }),
  message_id: t.String(),
  from: t.String(),
  to: t.String(),
  cc: t.Array(t.String(), { description: "Copied addresses (the merchant's receipt_cc)" }),
  reply_to: NullableString,
  subject: t.String(),
  text: t.String({ description: "The plain-text part" }),
  html: t.String({ description: "The HTML part" }),
  invoice_id: NullableString,
  transaction_id: NullableString,
  relay_status: t.String({
    description:
      "off (no --smtp) | pending | sent | failed | blocked (recipient not allowed by --smtp-allow; see relay_error)",
  }),
  relay_error: NullableString,
  relayed_at: t.Union([Timestamp, t.Null()]),
  created_at: Timestamp,
  html_url: t.String({ description: "The HTML part as a page" }),
  eml_url: t.String({ description: "The raw MIME message" }),
});

export const SmsRecord = t.Object({
  id: t.String(),
  to: t.String(),
  body: t.String(),
  transaction_id: NullableString,
  created_at: Timestamp,
});

function emailRecord(row: EmailRow, publicUrl: string): typeof EmailRecord.static {
  const base = `${publicUrl}/_sandbox/emails/${row.id}`;
  return {
    id: row.id,
    kind: row.kind,
    message_id: row.message_id,
    from: row.from_address,
    to: row.to_address,
    cc: ccOf(row),
    reply_to: row.reply_to || null,
    subject: row.subject,
    text: row.text,
    html: row.html,
    invoice_id: row.invoice_id,
    transaction_id: row.transaction_id,
    relay_status: row.relay_status,
    relay_error: row.relay_error,
    relayed_at: row.relayed_at,
    created_at: row.created_at,
    html_url: `${base}.html`,
    eml_url: `${base}.eml`,
  };
}

const smsRecord = (row: SmsRow): typeof SmsRecord.static => ({
  id: row.id,
  to: row.to_phone,
  body: row.body,
  transaction_id: row.transaction_id,
  created_at: row.created_at,
});

/**
 * The outboxes, for tests and developers (loopback only): what the sandbox e-mailed and
 * texted. Lists and `latest` act on the merchant whose API key is sent (the default merchant
 * without one). A message id is that merchant's when a key is sent; without a key it opens for
 * any merchant, so a link to it can be opened as is.
 */
export function outboxRoutes(deps: AppDeps) {
  const { mailer } = deps;
  const ToQuery = t.Object({
    ...PageQuery,
    to: t.Optional(t.String({ description: "Only messages to this recipient" })),
  });

  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .get(
      "/emails",
      async ({ headers, query, request }) => {
        const merchant = await sandboxMerchant(deps, headers.authorization);
        const to = query.to?.trim() || undefined;
        const page = await listPage(query, request, (page) => mailer.listEmails(merchant.id, { to }, page));
        return { ...page, data: page.data.map((row) => emailRecord(row, deps.publicUrl)) };
      },
      {
        query: ToQuery,
        response: { 200: PageOf(EmailRecord), 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
        detail: { summary: "E-mails the sandbox sent (newest first)" },
      },
    )
    .get(
      "/emails/:id",
      async ({ headers, params, set }) => {
        // ":id" may be "latest", and ".html" / ".eml" pick the HTML part or the raw message.
        // The `s` flag: an id may hold any character (a line break too), and each is looked up as is.
        const match = /^(.*?)(\.html|\.eml)?$/s.exec(params.id)!;
        const [, id, format] = match as unknown as [string, string, string | undefined];
        const row =
          id === "latest"
            ? await mailer.findLatestEmail((await sandboxMerchant(deps, headers.authorization)).id)
            : await mailer.findEmailOfAnyMerchant(id);
        // With an API key the lookup is that merchant's, like every record; without one, an id
        // (an unguessable UUID on a loopback-only route) opens as is, so links work when pasted.
        if (
          !row ||
          (headers.authorization && row.merchant_id !== (await sandboxMerchant(deps, headers.authorization)).id)
        ) {
          throw notFound("E-mail");
        }
        if (format === ".html") {
          set.headers["content-type"] = "text/html; charset=utf-8";
          // The page is the e-mail as sent; it may not run script or load anything but images, and
          // only the sandbox's own pages may frame it (no clickjacking a link in a receipt).
          set.headers["content-security-policy"] =
            "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
          set.headers["x-frame-options"] = "SAMEORIGIN";
          set.headers["x-content-type-options"] = "nosniff";
          return row.html;
        }
        if (format === ".eml") {
          set.headers["content-type"] = "message/rfc822";
          set.headers["content-disposition"] = `attachment; filename="${row.id}.eml"`;
          return mailer.raw(row);
        }
        return emailRecord(row, deps.publicUrl);
      },
      {
        params: t.Object({
          id: t.String({ description: "An e-mail id or `latest`, optionally ending in .html or .eml" }),
        }),
        response: {
          200: t.Union([EmailRecord, t.String({ description: ".html: the HTML part; .eml: the MIME message" })]),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
        detail: {
          summary: "One e-mail: JSON, or `{id}.html` (its HTML part) or `{id}.eml` (raw MIME); `latest` is the newest",
        },
      },
    )
    .get(
      "/sms",
      async ({ headers, query, request }) => {
        const merchant = await sandboxMerchant(deps, headers.authorization);
        const page = await listPage(query, request, (page) => mailer.listTexts(merchant.id, query.to, page));
        return { ...page, data: page.data.map(smsRecord) };
      },
      {
        query: ToQuery,
        response: { 200: PageOf(SmsRecord), 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
        detail: { summary: "Text messages the sandbox sent (newest first)" },
      },
    );
}
