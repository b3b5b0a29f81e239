/**
 * The dashboard's actions on the merchant: pick one, regenerate keys, save settings and custom
 * fields, advance the clock. Same-origin JSON only: the app's pipeline refuses the rest
 * (src/http/pipeline/sandbox-controls.ts checkCrossSite).
 */
import { Elysia, t } from "elysia";
import { ApiError, ValidationFailed } from "../../../domain/errors";
import { assertWithinClockLimit } from "../../routes/sandbox";
import { REGENERABLE_KEYS, type RegenerableKey } from "../../../services/merchants";
import { ACTION_RESPONSES, dashboardPath, dashboardPlugin, merchantCookie, type DashboardKit } from "./kit";

/** The clock form's limit: a year per click (the API's /_sandbox/clock/advance allows more). */
const MAX_DASHBOARD_ADVANCE = 31_536_000;

/** The POST actions of the keys, settings and clock pages, and the merchant picker. */
export function accountActions(kit: DashboardKit) {
  const { deps, service } = kit;
  const { merchants } = deps.services;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .post(
      "/dashboard/keys/regenerate",
      async ({ merchant, body }) => {
        const keys = body.keys.split(",").map((k) => k.trim());
        const unknown = keys.filter((k) => !(REGENERABLE_KEYS as readonly string[]).includes(k));
        if (unknown.length || keys.length === 0) {
          throw new ValidationFailed({
            keys: [`Expected some of ${REGENERABLE_KEYS.join(", ")}, got ${body.keys}.`],
          });
        }
        // Through the merchants service, which every key lookup goes through: the old keys stop working at once.
        await merchants.regenerateKeys(merchant.id, keys as RegenerableKey[]);
        return { message: "Regenerated: the new values are shown above." };
      },
      { body: t.Object({ keys: t.String({ maxLength: 200 }) }), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/settings",
      async ({ merchant, body }) => {
        const days = Number(body.ach_settlement_days);
        // The form's text becomes the API's types; the merchants service checks every value (as for PUT /_sandbox/merchants/{id}/settings).
        await merchants.updateSettings(merchant.id, {
          avs_zip: body.avs_zip,
          avs_street: body.avs_street,
          advanced_customization: body.advanced_customization,
          ach_settlement_days: days,
        });
        return { message: "Settings saved." };
      },
      {
        body: t.Object({
          avs_zip: t.Boolean(),
          avs_street: t.Boolean(),
          advanced_customization: t.Boolean(),
          ach_settlement_days: t.Optional(t.Union([t.Integer(), t.String({ maxLength: 10 })])),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/settings/surcharge",
      async ({ merchant, body }) => {
        const rate = body.cnp_credit_surcharge_rate?.trim() ?? "";
        // The merchants service checks the rate (at most 3%, two decimals), as for the settings API.
        await merchants.updateSettings(merchant.id, {
          is_surcharge_enabled: body.is_surcharge_enabled,
          cnp_credit_surcharge_rate: rate === "" ? null : rate,
        });
        return { message: "Surcharging saved." };
      },
      {
        body: t.Object({
          is_surcharge_enabled: t.Boolean(),
          cnp_credit_surcharge_rate: t.Optional(t.String({ maxLength: 20 })),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/settings/receipts",
      async ({ merchant, body }) => {
        await merchants.updateSettings(merchant.id, {
          receipt_reply_to: body.receipt_reply_to ?? "",
          // One text field: addresses separated by commas (the service splits and checks each).
          receipt_cc: body.receipt_cc ?? "",
          receipt_footer: body.receipt_footer ?? "",
          receipt_send_declined: body.receipt_send_declined,
        });
        return { message: "Receipt options saved." };
      },
      {
        body: t.Object({
          receipt_reply_to: t.Optional(t.String({ maxLength: 300 })),
          receipt_cc: t.Optional(t.String({ maxLength: 2000 })),
          receipt_footer: t.Optional(t.String({ maxLength: 2000 })),
          receipt_send_declined: t.Boolean(),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/settings/custom-fields",
      async ({ merchant, body }) => {
        await merchants.saveCustomField(
          merchant.id,
          {
            id: body.id ?? "",
            name: body.name ?? "",
            placeholder: body.placeholder ?? "",
            required: body.required,
            visible: body.visible,
          },
          body.original_id,
        );
        return { message: body.original_id === undefined ? "Custom field added." : "Custom field saved." };
      },
      {
        body: t.Object({
          original_id: t.Optional(t.String({ maxLength: 200 })),
          id: t.Optional(t.String({ maxLength: 200 })),
          name: t.Optional(t.String({ maxLength: 500 })),
          placeholder: t.Optional(t.String({ maxLength: 500 })),
          required: t.Boolean(),
          visible: t.Boolean(),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/settings/custom-fields/delete",
      async ({ merchant, body }) => {
        await merchants.removeCustomField(merchant.id, body.id);
        return { message: `Custom field ${body.id} removed.` };
      },
      { body: t.Object({ id: t.String({ maxLength: 200 }) }), response: ACTION_RESPONSES },
    )
    .post(
      "/dashboard/clock/advance",
      async ({ merchant, body }) => {
        const seconds = Number(body.seconds);
        if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DASHBOARD_ADVANCE) {
          throw new ValidationFailed({
            seconds: [`Advance by 1 to ${MAX_DASHBOARD_ADVANCE} seconds (a year) at a time.`],
          });
        }
        assertWithinClockLimit(deps, merchant.id, seconds);
        await deps.clock.advance(merchant.id, seconds * 1000);
        return { redirect: dashboardPath(body.back, "/dashboard/clock") };
      },
      {
        body: t.Object({
          seconds: t.Union([
            t.Integer({ minimum: 1, maximum: MAX_DASHBOARD_ADVANCE }),
            t.String({ pattern: "^[0-9]{1,9}$" }),
          ]),
          back: t.Optional(t.String({ maxLength: 500 })),
        }),
        response: ACTION_RESPONSES,
      },
    )
    .post(
      "/dashboard/merchant",
      async ({ body, set }) => {
        const merchant = await service.merchant(body.merchant_id);
        if (merchant.id !== body.merchant_id) throw new ApiError("not_found", "There is no such merchant.");
        set.headers["set-cookie"] = merchantCookie(merchant.id);
        return { redirect: "/" };
      },
      {
        body: t.Object({ merchant_id: t.String({ maxLength: 100 }) }),
        response: ACTION_RESPONSES,
      },
    );
}
