import { Elysia, t } from "elysia";
import { clockLimitMessage } from "../../../services/clock";
import { formatTimestamp } from "../../../domain/time";
import { ValidationFailed } from "../../../domain/errors";
import type { AppDeps } from "../../deps";
import { ErrorBody, Integer } from "../../../domain/schemas/records";
import { loopbackOnly, sandboxMerchant } from "./control";

/** Ten years: far enough for any test, bounded so one request cannot run forever. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 86_400;

const ClockState = t.Object({
  merchant_id: t.String(),
  now: t.String({ description: "The merchant's sandbox time, YYYY-MM-DD HH:MM:SS (UTC)" }),
  offset_seconds: t.Number({ description: "How far the merchant's clock is ahead of real time" }),
  real_now: t.String({ description: "Real time, YYYY-MM-DD HH:MM:SS (UTC)" }),
  next_settlement_at: t.Union([t.String(), t.Null()], {
    description:
      "The next midnight a settlement job (card batch, ACH settlement, deposit) is due; null when none is pending",
  }),
});

const AdvanceResult = t.Composite([
  ClockState,
  t.Object({
    ran: t.Object(
      {
        batches: Integer({ description: "Settlement batches closed" }),
        settled: Integer({ description: "Transactions (sales and refunds) settled" }),
        deposits: Integer({ description: "Deposits that landed" }),
      },
      { description: "What the crossed jobs did" },
    ),
  }),
]);

/** 422 on `seconds` when advancing by it would take the merchant's clock past LATEST_CLOCK_MS. */
export function assertWithinClockLimit(deps: AppDeps, merchantId: string, seconds: number): void {
  const max = deps.clock.maxAdvanceSeconds(merchantId);
  if (seconds > max)
    throw new ValidationFailed({ seconds: [clockLimitMessage(deps.clock.timestamp(merchantId), max)] });
}

/** `/_sandbox/clock`: read and advance the acting merchant's sandbox clock (loopback only). */
export function clockRoutes(deps: AppDeps) {
  const { clock, services } = deps;
  const state = async (merchantId: string) => {
    const next = await services.settlement.nextJobAt(merchantId);
    return {
      merchant_id: merchantId,
      now: clock.timestamp(merchantId),
      offset_seconds: clock.offsetMs(merchantId) / 1000,
      real_now: formatTimestamp(clock.realDate()),
      next_settlement_at: next === null ? null : formatTimestamp(new Date(next)),
    };
  };

  const counts = (merchantId: string) => services.settlement.counts(merchantId);

  return new Elysia({ prefix: "/_sandbox/clock", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .get("", async ({ headers }) => state((await sandboxMerchant(deps, headers.authorization)).id), {
      response: { 200: ClockState, 401: ErrorBody, 403: ErrorBody },
      detail: {
        summary: "The acting merchant's sandbox clock",
        description:
          "Real time plus the merchant's offset; every timestamp, settlement and retry of the merchant reads it.",
      },
    })
    .post(
      "/advance",
      async ({ headers, body }) => {
        const merchantId = (await sandboxMerchant(deps, headers.authorization)).id;
        assertWithinClockLimit(deps, merchantId, body.seconds);
        const before = await counts(merchantId);
        await clock.advance(merchantId, body.seconds * 1000);
        const after = await counts(merchantId);
        return {
          ...(await state(merchantId)),
          ran: {
            batches: after.batches - before.batches,
            settled: after.settled - before.settled,
            deposits: after.deposits - before.deposits,
          },
        };
      },
      {
        body: t.Object({
          seconds: t.Number({
            minimum: 0,
            maximum: MAX_ADVANCE_SECONDS,
            description: "How far to move the clock forward (never back); 86400 = one day",
            examples: [86_400],
          }),
        }),
        response: { 200: AdvanceResult, 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Move the acting merchant's clock forward and run every job the time crosses",
          description:
            "Jobs run in time order: each midnight crossed in turn (card batches, ACH settlements, deposits, webhook retries due by then), then the final time. The clock goes no later than 2099-12-31 23:59:59 UTC (a 422 on `seconds` says how far it may still go); POST /_sandbox/reset puts it back on real time.",
        },
      },
    );
}
