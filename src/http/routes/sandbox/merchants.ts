import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ApiError, notFound } from "../../../domain/errors";
import { merchantRecord, REGENERABLE_KEYS } from "../../../services/merchants";
import { ErrorBody, Integer, MerchantRecord } from "../../../domain/schemas/records";
import { SurchargeSettingsFields } from "../../../domain/schemas/surcharges";
import { loopbackOnly } from "./control";

const Settings = t.Object({
  avs_zip: t.Optional(t.Boolean({ description: "address_zip required and checked" })),
  avs_street: t.Optional(t.Boolean({ description: "address_1 required and checked" })),
  advanced_customization: t.Optional(t.Boolean({ description: "custom fields shown on invoices and e-mails" })),
  ach_settlement_days: t.Optional(Integer({ minimum: 0, maximum: 10, description: "business days to settle ACH" })),
  custom_fields: t.Optional(
    t.Array(
      t.Object({
        id: t.String({ description: "required, unique; letters, digits, _ - . :" }),
        name: t.String({ description: "the label" }),
        placeholder: t.Optional(t.String()),
        required: t.Optional(t.Boolean({ description: "POST /invoice must give a value (default false)" })),
        type: t.Optional(t.String({ description: "only text" })),
        visible: t.Optional(t.Boolean({ description: "false: merchant-facing pages only (default true)" })),
      }),
      { description: "Advanced Customization fields; the whole list (replaces the current one)" },
    ),
  ),
  receipt_reply_to: t.Optional(t.String({ description: "Reply-To of receipt e-mails; empty for none" })),
  receipt_cc: t.Optional(t.Array(t.String(), { description: "addresses copied on every receipt e-mail (at most 5)" })),
  receipt_footer: t.Optional(t.String({ description: "a closing line on every receipt (at most 500 characters)" })),
  receipt_send_declined: t.Optional(t.Boolean({ description: "e-mail a receipt for a declined pay() (default true)" })),
  ...SurchargeSettingsFields,
});

/** Messages of the sandbox controls; tests compare against these. */
export const SANDBOX_MESSAGES = {
  merchantCap: (max: number) =>
    `This sandbox already holds ${max} merchants, the most --max-merchants allows. Delete merchants your tests made (DELETE /_sandbox/merchants/{id}), start with a larger --max-merchants, or with --reset.`,
  defaultMerchant: "The default merchant cannot be deleted; POST /_sandbox/reset empties it instead.",
} as const;

/** `/_sandbox/merchants`: merchants for tests, their settings and keys. */
export function merchantRoutes(deps: AppDeps) {
  const { merchants } = deps.services;
  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .post(
      "/merchants",
      async ({ body }) => {
        // Bounded: every merchant is a row the dashboard lists and a key lookups may hit (docs/security.md).
        if ((await merchants.countCreated()) >= deps.config.maxMerchants)
          throw new ApiError("invalid_state", SANDBOX_MESSAGES.merchantCap(deps.config.maxMerchants));
        return merchantRecord(
          await merchants.create({ name: body?.name ?? "Test Merchant", email: body?.email, settings: body?.settings }),
        );
      },
      {
        body: t.Optional(
          t.Object({
            name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
            email: t.Optional(t.String()),
            settings: t.Optional(Settings),
          }),
        ),
        response: { 200: MerchantRecord, 403: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Create an isolated merchant with random keys (one per test suite)",
          description:
            "At most --max-merchants (default 1,000) besides the default merchant; past that a 422 invalid_state. Delete the ones a test made with DELETE /_sandbox/merchants/{id}.",
        },
      },
    )
    .get("/merchants", async () => (await merchants.list()).map(merchantRecord), {
      response: { 200: t.Array(MerchantRecord), 403: ErrorBody },
      detail: { summary: "List merchants" },
    })
    .delete(
      "/merchants/:id",
      async ({ params }) => {
        const merchant = await merchants.find(params.id);
        if (!merchant) throw notFound("Merchant");
        if (merchant.is_default) throw new ApiError("invalid_state", SANDBOX_MESSAGES.defaultMerchant);
        await deps.services.sandbox.deleteMerchant(merchant.id);
        return { id: merchant.id, deleted: true };
      },
      {
        params: t.Object({ id: t.String({ maxLength: 100 }) }),
        response: {
          200: t.Object({ id: t.String(), deleted: t.Boolean() }),
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
        detail: { summary: "Delete a merchant a test made, with every record of it (not the default merchant)" },
      },
    )
    .put(
      "/merchants/:id/settings",
      async ({ params, body }) => merchantRecord(await merchants.updateSettings(params.id, body)),
      {
        params: t.Object({ id: t.String() }),
        body: Settings,
        response: { 200: MerchantRecord, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        detail: { summary: "Change a merchant's settings" },
      },
    )
    .post(
      "/merchants/:id/regenerate-keys",
      async ({ params, body }) => merchantRecord(await merchants.regenerateKeys(params.id, body?.keys)),
      {
        params: t.Object({ id: t.String() }),
        body: t.Optional(
          t.Object({
            keys: t.Optional(
              t.Array(t.Union(REGENERABLE_KEYS.map((key) => t.Literal(key))), {
                minItems: 1,
                uniqueItems: true,
                description: "which secrets to replace (default: api_key and web_payments_token)",
              }),
            ),
          }),
        ),
        response: { 200: MerchantRecord, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Replace a merchant's API key, web payments token and/or webhook signing secret",
          description: "The old values stop working at once. The default merchant's configured keys return at restart.",
        },
      },
    );
}
