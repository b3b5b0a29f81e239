/**
 * The background loops the server runs beside the HTTP app (the real-time clock ticker here; the
 * mailer's, the webhook dispatcher's and SQLite's group commit come from their own modules), and
 * starting and stopping them in order.
 */
import type { AppDeps } from "../http/deps";
import type { Logger } from "../lib/logger";
import type { Worker } from "../lib/worker";
import type { SandboxClock } from "../services/clock";

/** Runs every merchant's due jobs once a second of real time, and once at start to catch up. */
export function clockTicker(clock: SandboxClock, log: Logger, intervalMs = 1000): Worker {
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;
  // A failing job is logged and retried on the next tick; it must never stop the server. A tick
  // still running when the next is due lets that one pass.
  const tick = () => {
    running ??= clock
      .tick()
      .catch((error) => log.error(`clock job failed: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => (running = undefined));
  };
  return {
    name: "clock",
    start() {
      tick();
      timer = setInterval(tick, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

export function startWorkers(deps: AppDeps): void {
  for (const worker of deps.workers) worker.start();
}

/** Stops the workers in the reverse order of their start. */
export async function stopWorkers(deps: AppDeps): Promise<void> {
  for (const worker of [...deps.workers].reverse()) await worker.stop();
}
