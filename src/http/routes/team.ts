import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { listPage } from "../page";
import { ValidationFailed } from "../../domain/errors";
import { settingsOf } from "../../services/merchants";
import { AUTH_ERRORS, ErrorBody, Integer, PageOf, PageQuery } from "../../domain/schemas/records";
import { SelfMerchant, SelfUser } from "../../domain/schemas/self";
import { SurchargeSettingsFields } from "../../domain/schemas/surcharges";
import { selfRecord } from "../../services/self";
import { EPHEMERAL_TTL_SECONDS } from "../../services/ephemeral";

const EphemeralRecord = t.Object(
  {
    token: t.String({ description: "Send it as Authorization: Bearer <token> until it expires" }),
    expires_at: t.String({ description: "YYYY-MM-DD HH:MM:SS on the merchant's sandbox clock" }),
  },
  { title: "EphemeralToken" },
);

const ApiKeyUser = t.Composite([SelfUser, t.Object({ api_key: t.String({ description: "The merchant's API key" }) })], {
  title: "ApiKeyUser",
});

/** The merchant's settings as PUT /team/options takes them (any subset; docs/contract.md §6 MerchantSettings). */
const TeamOptionsBody = t.Object(
  {
    avs_zip: t.Optional(t.Boolean()),
    avs_street: t.Optional(t.Boolean()),
    advanced_customization: t.Optional(t.Boolean()),
    ach_settlement_days: t.Optional(Integer({ minimum: 0, maximum: 10 })),
    receipt_reply_to: t.Optional(t.String({ maxLength: 254, description: "an e-mail address, or empty" })),
    receipt_cc: t.Optional(t.Array(t.String({ format: "email", maxLength: 254 }), { maxItems: 10 })),
    receipt_footer: t.Optional(t.String({ maxLength: 1000 })),
    receipt_send_declined: t.Optional(t.Boolean()),
    ...SurchargeSettingsFields,
  },
  {
    title: "TeamOptionsRequest",
    description:
      "Any subset. Members the sandbox has no setting for (the real service's other team options) are ignored.",
  },
);

/** One custom field of the hosted pages, as the real service's advanced customizations give it. */
const AdvancedCustomizationBody = t.Object(
  {
    id: t.String({
      minLength: 1,
      maxLength: 64,
      pattern: "^[\\w.:-]+$",
      description: "The field's id (kept on invoices' meta)",
    }),
    name: t.String({ minLength: 1, maxLength: 100, description: "Its label" }),
    placeholder: t.Optional(t.String({ maxLength: 100 })),
    required: t.Boolean(),
    visible: t.Boolean({ description: "false: the merchant sees it, the customer does not" }),
    type: t.Literal("text", { description: "The sandbox's custom fields are text (the real service also has select)" }),
    option: t.Optional(
      t.Object(
        { name: t.Optional(t.String()), value: t.Optional(t.String()) },
        { description: "A select's option: unused by text fields" },
      ),
    ),
  },
  { title: "AdvancedCustomizationRequest" },
);

/** The account operations of the real service: ephemeral tokens, team settings, the API key. */
export function teamRoutes(deps: AppDeps) {
  const { merchants, ephemeral } = deps.services;
  return new Elysia({ tags: ["Merchant"] })
    .use(merchantAuth(deps))
    .get(
      "/ephemeral",
      ({ merchant, query }) => {
        const user = selfRecord(merchant).user;
        if (query.user_id !== undefined && query.user_id !== user.id) {
          throw new ValidationFailed({ user_id: ["The merchant has no user with this id."] });
        }
        if (query.user_email !== undefined && query.user_email.toLowerCase() !== (user.email ?? "").toLowerCase()) {
          throw new ValidationFailed({ user_email: ["The merchant has no user with this e-mail."] });
        }
        return ephemeral.issue(merchant.id, user.id);
      },
      {
        query: t.Object({
          user_id: t.Optional(
            t.String({ description: "The user the token acts as: the merchant's API user (GET /self → user.id)" }),
          ),
          user_email: t.Optional(t.String({ format: "email", description: "Or that user's e-mail" })),
        }),
        response: { 200: EphemeralRecord, ...AUTH_ERRORS },
        detail: {
          summary: "A short-lived token for the merchant's user",
          description: `Accepted as Authorization: Bearer <token> wherever the API key is, for ${EPHEMERAL_TTL_SECONDS / 60} minutes of the merchant's sandbox clock (advancing the clock past expires_at ends it: a 401 saying so).`,
        },
      },
    )
    .get(
      "/team/apikey",
      ({ merchant, query, request }) =>
        listPage(query, request, async () => ({
          rows: [{ ...selfRecord(merchant).user, api_key: merchant.api_key }],
          total: 1,
        })),
      {
        query: t.Object(PageQuery),
        response: { 200: PageOf(ApiKeyUser), ...AUTH_ERRORS },
        detail: {
          summary: "The merchant's API keys: its one API user, with the key",
          description:
            "The sandbox has one API key per merchant (rotate it from the dashboard or /_sandbox/merchants).",
        },
      },
    )
    .put(
      "/team/options",
      async ({ merchant, body }) => selfRecord(await merchants.updateSettings(merchant.id, body)).merchant,
      {
        body: TeamOptionsBody,
        response: { 200: SelfMerchant, ...AUTH_ERRORS },
        detail: {
          summary: "Change the merchant's settings (any subset)",
          description:
            "The settings of GET /self → settings: address checks, advanced customization, ACH settlement days, receipt options, surcharging (is_surcharge_enabled, cnp_credit_surcharge_rate: at most 3). Answers the merchant in the real shape (options = the settings).",
        },
      },
    )
    .put(
      "/team/option/advanced_customizations",
      async ({ merchant, body }) => {
        const { option: _option, ...field } = body;
        const exists = settingsOf(merchant).custom_fields.some((f) => f.id === body.id);
        const row = await merchants.saveCustomField(merchant.id, field, exists ? body.id : undefined);
        return selfRecord(row).merchant;
      },
      {
        body: AdvancedCustomizationBody,
        response: { 200: SelfMerchant, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Add or replace a custom field of the hosted pages",
          description:
            "A field with this id is replaced, else added. Shown on the hosted pages while advanced_customization is on (PUT /team/options). Answers the merchant in the real shape.",
        },
      },
    );
}
