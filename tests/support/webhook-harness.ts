/**
 * What a webhook test file needs around each test: `start()` gives an app on its own database with
 * its workers running (the delivery loop), `receiver()` a real receiver (tests/support/webhook-receiver.ts);
 * after each test the workers stop and every receiver closes.
 * @example
 * const { start, receiver } = webhookHarness();
 * test("…", async () => { const c = await start(); const r = receiver(); … });
 */
import { afterEach } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import type { Config } from "../../src/lib/config";
import { setup, type TestContext } from "./app";
import { startReceiver, type Receiver } from "./webhook-receiver";

export function webhookHarness() {
  let ctx: TestContext | undefined;
  const receivers: Receiver[] = [];

  afterEach(async () => {
    if (ctx) await stopWorkers(ctx.deps);
    ctx = undefined;
    for (const receiver of receivers.splice(0)) await receiver.stop();
  });

  return {
    async start(config: Partial<Config> = {}): Promise<TestContext> {
      ctx = await setup({ config });
      startWorkers(ctx.deps);
      return ctx;
    },
    receiver(...args: Parameters<typeof startReceiver>): Receiver {
      const receiver = startReceiver(...args);
      receivers.push(receiver);
      return receiver;
    },
  };
}
