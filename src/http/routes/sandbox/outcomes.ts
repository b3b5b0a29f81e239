import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody, Integer } from "../../../domain/schemas/records";
import { MAX_OUTCOMES } from "../../../services/outcomes";
import { loopbackOnly, sandboxMerchant } from "./control";

const Pending = t.Object(
  {
    payment_method_id: t.String(),
    outcomes: t.Array(t.String(), { description: "The outcomes its next authorizations take, first first" }),
  },
  { title: "PendingOutcomes" },
);

/**
 * `/_sandbox/outcomes`: outcome sequences. A payment method's next authorizations (POST /charge,
 * invoice payment, pay()) take the armed outcomes in order, then its own again. The acting
 * merchant is the one whose API key is sent, else the default merchant (loopback only).
 */
export function outcomeRoutes(deps: AppDeps) {
  const { outcomes } = deps.services;
  const merchantOf = async (authorization: string | undefined) => (await sandboxMerchant(deps, authorization)).id;
  return new Elysia({ prefix: "/_sandbox/outcomes", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .post("", async ({ headers, body }) => outcomes.arm(await merchantOf(headers.authorization), body), {
      body: t.Object({
        payment_method_id: t.Optional(t.Unknown({ description: "A payment method of the acting merchant" })),
        outcomes: t.Optional(
          t.Unknown({
            description: `1 to ${MAX_OUTCOMES} outcomes: approve or a decline code (GET /_sandbox/test-cards lists them)`,
            examples: [["insufficient_funds", "approve"]],
          }),
        ),
      }),
      response: { 200: Pending, 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Make a payment method's next authorizations take these outcomes, in order",
        description:
          "Replaces the payment method's pending sequence. Each charge, invoice payment or pay() of it takes the next outcome in its own unit of work; when none is left its own outcome applies again. An armed outcome is final (the address and CVV checks are recorded but do not decline it). An unknown outcome, a bank decline for a card (or the reverse), another merchant's payment method, an empty or too long list: 422 naming it, and nothing is armed.",
      },
    })
    .get("", async ({ headers }) => ({ data: await outcomes.list(await merchantOf(headers.authorization)) }), {
      response: { 200: t.Object({ data: t.Array(Pending) }), 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "The acting merchant's pending outcome sequences" },
    })
    .delete(
      "",
      async ({ headers, query }) => ({
        cleared: await outcomes.clear(await merchantOf(headers.authorization), query.payment_method_id),
      }),
      {
        query: t.Object({
          payment_method_id: t.Optional(t.String({ description: "Clear only this payment method's sequence" })),
        }),
        response: {
          200: t.Object({ cleared: Integer({ description: "Pending outcomes removed" }) }),
          401: ErrorBody,
          403: ErrorBody,
          422: ErrorBody,
        },
        detail: { summary: "Clear the acting merchant's pending outcomes (all, or one payment method's)" },
      },
    );
}
