/**
 * `/underwriting`: card disputes (docs/settlement.md, "Disputes") — the list, and the submission of the
 * merchant's evidence before respond_by. The evidence files themselves are `/file/dispute`
 * (./files.ts); opening and deciding happen on the sandbox clock.
 */
import { Elysia, t } from "elysia";
import { pageRequest } from "../../domain/pagination";
import { pageOf } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody } from "../../domain/schemas/records";
import { DisputeListQuery, DisputePage, DisputeRecord, DisputeSubmitBody } from "../../domain/schemas/disputes";

export function disputeRoutes(deps: AppDeps) {
  const { disputes } = deps.services;
  return new Elysia({ prefix: "/underwriting", tags: ["Disputes"] })
    .use(merchantAuth(deps))
    .get(
      "/disputes",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const filters = {
          id: query.id,
          transactionId: query.transaction_id,
          status: query.status,
          reason: query.reason,
          startDate: query.startDate,
          endDate: query.endDate,
          sort: query.sort,
          order: query.order,
        };
        return pageOf(await disputes.list(merchant.id, filters, page), page, request.url);
      },
      {
        query: DisputeListQuery,
        response: { 200: DisputePage, ...AUTH_ERRORS },
        detail: {
          summary: "List the merchant's disputes",
          description:
            "Newest first by default (sort: created_at, updated_at, respond_by, amount; order: asc, desc). startDate and endDate (UTC, inclusive) bound when the dispute opened. Each carries its live evidence files.",
        },
      },
    )
    .post("/dispute/:id/submit", ({ merchant, params, body }) => disputes.submit(merchant.id, params.id, body?.notes), {
      params: t.Object({ id: t.String() }),
      body: DisputeSubmitBody,
      response: { 200: DisputeRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Submit a dispute's evidence for review",
        description:
          "Before respond_by, a PENDING dispute with at least one evidence file (or notes) becomes EVIDENCE_UPLOADED; it is decided on the clock at the first midnight UTC 10 days later: evidence that says losing_evidence loses, winning_evidence wins (the amount is given back), anything else loses. After respond_by, or once submitted or closed: 422 invalid_state.",
      },
    });
}
