import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody, Integer } from "../../../domain/schemas/records";
import { loopbackOnly, sandboxMerchant } from "./control";

/** A snapshot's name: what a test calls it, usable in a path as it is. */
export const SNAPSHOT_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";

const SnapshotName = t.String({
  pattern: SNAPSHOT_NAME_PATTERN,
  description: "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
  error: "The name must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
});

const Snapshot = t.Object({
  name: t.String(),
  records: Integer({ description: "Rows copied, all tables together" }),
  created_at: t.String({ description: "The merchant's sandbox time when it was taken, YYYY-MM-DD HH:MM:SS (UTC)" }),
  tables: t.Record(t.String(), Integer(), { description: "Rows copied, by table" }),
});

/**
 * `/_sandbox/snapshots`: named copies of the acting merchant's whole state and their restore. A
 * snapshot of a name that exists replaces it (a suite's setup may run again).
 */
export function snapshotRoutes(deps: AppDeps) {
  const { snapshots } = deps.services;
  const merchantId = async (authorization: string | undefined) => (await sandboxMerchant(deps, authorization)).id;
  return new Elysia({ prefix: "/_sandbox/snapshots", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .post("", async ({ headers, body }) => snapshots.create(await merchantId(headers.authorization), body.name), {
      body: t.Object({ name: SnapshotName }),
      response: { 200: Snapshot, 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Take a snapshot of the acting merchant's state (replacing one of the same name)",
        description:
          "Copies every record of the merchant (customers, payment methods, invoices, transactions, deposits, e-mails, SMS, webhooks and their deliveries and attempts, idempotency keys), its settings and its clock offset. Its keys are not part of it.",
      },
    })
    .get("", async ({ headers }) => ({ data: await snapshots.list(await merchantId(headers.authorization)) }), {
      response: { 200: t.Object({ data: t.Array(Snapshot) }), 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "The acting merchant's snapshots, oldest first" },
    })
    .get("/:name", async ({ headers, params }) => snapshots.get(await merchantId(headers.authorization), params.name), {
      params: t.Object({ name: SnapshotName }),
      response: { 200: Snapshot, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      detail: { summary: "One snapshot of the acting merchant" },
    })
    .post(
      "/:name/restore",
      async ({ headers, params }) => snapshots.restore(await merchantId(headers.authorization), params.name),
      {
        params: t.Object({ name: SnapshotName }),
        response: { 200: Snapshot, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Put the acting merchant's state back as the snapshot holds it",
          description:
            "Every record of the merchant is replaced by the snapshot's, with their ids, timestamps and order; its settings and clock offset are set back; pending webhook deliveries are sent when due. The snapshot stays, to be restored again.",
        },
      },
    )
    .delete(
      "/:name",
      async ({ headers, params }) => {
        await snapshots.delete(await merchantId(headers.authorization), params.name);
        return { deleted: true as const, name: params.name };
      },
      {
        params: t.Object({ name: SnapshotName }),
        response: {
          200: t.Object({ deleted: t.Literal(true), name: t.String() }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
        detail: { summary: "Delete a snapshot of the acting merchant" },
      },
    );
}
