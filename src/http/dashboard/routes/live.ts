/**
 * Live refresh: `/dashboard/events` streams a `change` event whenever something of the merchant
 * changes, so an open page re-renders; closeLiveStreams ends them all at shutdown.
 */
import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import type { DashboardService } from "../../../services/dashboard";
import { dashboardPlugin, type DashboardKit } from "./kit";

/** `/dashboard/events`: the live-refresh stream of the picked merchant. */
export function liveRoutes(kit: DashboardKit) {
  const { deps, service } = kit;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } }).use(dashboardPlugin(kit)).get(
    "/dashboard/events",
    ({ merchant, request, server, query }) => {
      // Bun closes idle connections after 10 s; this stream stays open while the page does.
      server?.timeout(request, 0);
      const since = /^\d{1,15}$/.test(query.since ?? "") ? Number(query.since) : undefined;
      return new Response(changeStream(deps, service, merchant.id, request.signal, since), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" },
      });
    },
    { query: t.Object({ since: t.Optional(t.String({ maxLength: 20 })) }) },
  );
}

/**
 * Ends every open live-refresh stream (src/entry/server.ts calls it on SIGINT/SIGTERM: an open dashboard tab
 * would otherwise keep the server's graceful stop waiting forever).
 */
export function closeLiveStreams(deps: AppDeps): void {
  for (const close of [...deps.liveStreams]) close();
}

/**
 * Server-sent events: `change` whenever a record of the merchant changes (deps.events) or any row
 * is written (e-mails, SMS, webhook attempts — polled once a second), and a comment every 8 s (under Bun's 10 s idle timeout).
 */
export function changeStream(
  deps: AppDeps,
  service: DashboardService,
  merchantId: string,
  signal: AbortSignal,
  since?: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let closed = false;
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send("retry: 2000\n\n");
      let last = await service.changeMark(merchantId);
      // The page was rendered at `since`: what was written between its render and this stream is announced at once.
      if (since !== undefined && since !== last) send(`event: change\ndata: {"name":"write"}\n\n`);
      const off = deps.events.on((_ex, event) => {
        if (event.merchantId === merchantId) send(`event: change\ndata: ${JSON.stringify({ name: event.name })}\n\n`);
      });
      let polling = false;
      const poll = setInterval(() => {
        if (polling) return;
        polling = true;
        service
          .changeMark(merchantId)
          .then((now) => {
            if (now !== last) {
              last = now;
              send(`event: change\ndata: {"name":"write"}\n\n`);
            }
          })
          .catch(() => {})
          .finally(() => (polling = false));
      }, 1000);
      const heartbeat = setInterval(() => send(": keep-alive\n\n"), 8_000);
      const streams = deps.liveStreams;
      const close = () => cleanup();
      streams.add(close);
      cleanup = () => {
        if (closed) return;
        closed = true;
        streams.delete(close);
        off();
        clearInterval(poll);
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      signal.addEventListener("abort", cleanup, { once: true });
    },
    cancel() {
      cleanup();
    },
  });
}
