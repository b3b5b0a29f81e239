import { Elysia, t } from "elysia";
import { runIdempotent, type StoredResponse } from "../services/idempotency";
import type { Executor } from "../services";
import type { AppDeps } from "./deps";

/** The header every idempotent route documents: a retry with the same key and body gets the first answer. */
export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(
    t.String({ description: "Repeat a request safely: same key + same body → same answer" }),
  ),
});

/**
 * What an idempotent route declares: its scope, the route as keys are stored under it (`:name`
 * is filled in from the path, so "POST /transaction/:id/capture" keeps one scope per
 * transaction), and optionally the request a key is bound to (the validated body by default).
 */
export type IdempotentRoute =
  | string
  | {
      scope: string;
      /** The part of the request a repeat must send unchanged; another value with the same key is a 409. */
      request: (ctx: { body: unknown; params: Record<string, string> }) => unknown;
    };

/** The answer of an idempotent write, computed inside its unit of work. */
export interface IdempotentAnswer extends StoredResponse {
  /** Runs once the unit of work has committed (e-mail, say); never on a replay, and never stored. */
  afterCommit?: () => Promise<unknown>;
}

/** The Idempotency-Key header, or the idempotency_id body field. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>, body: unknown): string | undefined {
  const header = headers["idempotency-key"];
  if (header) return header;
  const field = (body as { idempotency_id?: unknown } | undefined)?.idempotency_id;
  return typeof field === "string" && field !== "" ? field : undefined;
}

/** "POST /transaction/:id/capture" with params {id: "t1"} → "POST /transaction/t1/capture". */
function fillScope(scope: string, params: Record<string, string>): string {
  return scope.replace(/:([A-Za-z_]\w*)/g, (placeholder, name: string) => params[name] ?? placeholder);
}

/**
 * The idempotent write, once for every route (`idempotent: "POST /charge"`): the route's handler
 * hands its work to `idempotently`, which runs it in one unit of work at most once per merchant,
 * scope and Idempotency-Key (header, or the body's idempotency_id). A repeat with the same request
 * answers the stored status and body with `Idempotent-Replayed: true`; one with a different request
 * is a 409; a key longer than 255 characters a 422; without a key the work simply runs. The
 * merchant is the one the route's auth resolved (API key or web payments token).
 *
 * @example
 * .post("/charge", ({ idempotently, body }) => idempotently(async (tx) => ({ status: 200, body: ... })),
 *   { idempotent: "POST /charge" })
 */
export function idempotency(deps: AppDeps) {
  return new Elysia({ name: "idempotency" }).macro({
    idempotent: (route: IdempotentRoute) => ({
      resolve(ctx) {
        const { body, headers, set } = ctx;
        const params = ctx.params as Record<string, string>;
        const merchant = (ctx as { merchant?: { id: string; active_webhooks?: number } }).merchant;
        return {
          idempotently: async <A extends IdempotentAnswer>(work: (tx: Executor) => Promise<A>): Promise<A["body"]> => {
            if (!merchant) throw new Error("an idempotent route needs the merchant of its auth; got none");
            // The unit acts for the merchant as the request read it (on PostgreSQL, with its webhooks' count).
            const { webhooks } = deps.services;
            const unit =
              merchant.active_webhooks === undefined
                ? work
                : (tx: Executor) => (webhooks.actsFor(tx, merchant), work(tx));
            const key = idempotencyKeyOf(headers, body);
            if (key === undefined) {
              // Most writes: nothing to store or replay, so the work is one unit of work and no more.
              const answer = await deps.db.transaction(unit);
              await answer.afterCommit?.();
              set.status = answer.status;
              return answer.body as A["body"];
            }
            const scope = typeof route === "string" ? route : route.scope;
            const request = typeof route === "string" ? (body ?? {}) : route.request({ body, params });
            let afterCommit: (() => Promise<unknown>) | undefined;
            const result = await runIdempotent(
              deps.db,
              {
                merchantId: merchant.id,
                scope: fillScope(scope, params),
                key,
                body: request,
                now: deps.clock.timestamp(merchant.id),
              },
              async (tx) => {
                const answer = await unit(tx);
                afterCommit = answer.afterCommit;
                return { status: answer.status, body: answer.body };
              },
            );
            if (result.replayed) set.headers["idempotent-replayed"] = "true";
            else await afterCommit?.();
            set.status = result.status;
            return result.body as A["body"];
          },
        };
      },
    }),
  });
}
