import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody } from "../../../domain/schemas/records";
import { DISPUTE_REASON_CODES, OpenedDisputeRecord } from "../../../domain/schemas/disputes";
import { loopbackOnly, sandboxMerchant } from "./control";

/**
 * `/_sandbox/disputes`: a cardholder disputes any settled card payment now, as the disputed test
 * cards do on their day (docs/settlement.md, "Disputes"). The acting merchant is the one whose API
 * key is sent, else the default merchant (loopback only).
 */
export function sandboxDisputeRoutes(deps: AppDeps) {
  const { disputeClock } = deps.services;
  return new Elysia({ prefix: "/_sandbox/disputes", tags: ["Sandbox control"] }).use(loopbackOnly(deps)).post(
    "",
    async ({ headers, body }) => {
      const merchant = await sandboxMerchant(deps, headers.authorization);
      return disputeClock.openNow(merchant.id, body.transaction_id, body.reason ?? "FRAUD");
    },
    {
      body: t.Object({
        transaction_id: t.String({ minLength: 1, description: "A settled card charge (or captured pre_auth)" }),
        reason: t.Optional(
          t.Union(
            DISPUTE_REASON_CODES.map((code) => t.Literal(code)),
            { description: "The dispute's reason (default FRAUD)" },
          ),
        ),
      }),
      response: { 200: OpenedDisputeRecord, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Open a dispute on a settled card payment now",
        description:
          "As a disputed test card's dispute opens on its day: PENDING, respond_by 10 days later, the amount still held and the 20.00 fee withdrawn from the next card deposit, create_dispute, an e-mail to the merchant. A bank payment, a payment not settled yet, voided, refunded in full or already disputed: 422 invalid_state, and nothing is written.",
      },
    },
  );
}
