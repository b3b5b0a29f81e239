/**
 * `--log-requests`: one line per request (method, path, status, time), written after the answer
 * left. Only the path: query strings and bodies never reach the log. Without the flag the plugin
 * adds no hook at all (a line per request was a measurable share of a charge's CPU).
 *
 * @example
 * new Elysia().use(requestLog({ config: { logRequests: true }, log })); // "GET /self 200 0.4ms"
 */
import { Elysia } from "elysia";
import type { Logger } from "../../lib/logger";

const STARTED = Symbol("paysandbox.requestStarted");

type Timed = { [STARTED]?: number };

/** The plugin; mount it first, so the time covers every other step. */
export function requestLog(deps: { config: { logRequests: boolean }; log: Logger }) {
  const plugin = new Elysia({ name: "request-log" });
  if (!deps.config.logRequests) return plugin;
  return (
    plugin
      // The start time rides on the request's `set` (see request-id.ts for why not the context).
      .onRequest(({ set }) => {
        (set as Timed)[STARTED] = performance.now();
      })
      .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
        const started = (set as Timed)[STARTED];
        const ms = started === undefined ? "?" : (performance.now() - started).toFixed(1);
        // A handler that returns a Response (pages, assets, 304s) carries its own status.
        const status = responseValue instanceof Response ? responseValue.status : (set.status ?? 200);
        deps.log.info(`${request.method} ${new URL(request.url).pathname} ${status} ${ms}ms`);
      })
  );
}
