/**
 * startSandbox(): start (or share, or attach to) a sandbox and hand out handles to it. Handles
 * are counted per process: the sandbox a process started stops with the last handle released.
 */
import type * as Public from "../index";
import { serveCheckoutPage } from "./browser";
import { requestJson } from "./http";
import { clockOf, faultsOf, outboxOf, outcomesOf, stateOf, webhooksOf, type MerchantContext } from "./merchant";
import { spawnSandbox, type ChildSandbox } from "./process";

interface MerchantRecord {
  id: string;
  name: string;
  api_key: string;
  web_payments_token: string;
  webhook_secret: string;
  is_default: boolean;
}

/** A sandbox process this process started, shared by every handle with the same flags. */
interface Shared {
  child: ChildSandbox;
  refs: number;
  /** True when startSandbox() exported PAYSANDBOX_URL for it. */
  exportedUrl: boolean;
}

interface Registry {
  /** By the flags they were started with; a promise while starting. */
  running: Map<string, Promise<Shared>>;
  /** The same once started, for the synchronous exit hook. */
  started: Map<string, Shared>;
}

// On globalThis, so the ESM and the CommonJS build loaded in one process share their sandboxes.
const REGISTRY_KEY = Symbol.for("paysandbox.testing.registry");
const registry: Registry = ((globalThis as Record<symbol, Registry | undefined>)[REGISTRY_KEY] ??= (() => {
  const created: Registry = { running: new Map(), started: new Map() };
  // A test process that ends without stop() still takes its sandboxes with it (and, should it be
  // killed outright, each sandbox stops by itself when its standard input closes).
  process.once("exit", () => {
    for (const shared of created.started.values()) shared.child.kill();
  });
  return created;
})());

async function acquire(key: string, args: readonly string[], startTimeoutMs: number, log: boolean) {
  let pending = registry.running.get(key);
  let mode: "started" | "shared" = "shared";
  if (!pending) {
    mode = "started";
    pending = spawnSandbox({ args, startTimeoutMs, log }).then((child) => {
      const shared: Shared = { child, refs: 0, exportedUrl: false };
      registry.started.set(key, shared);
      if (process.env.PAYSANDBOX_URL === undefined) {
        // Test workers a runner starts from here on (a global setup's children) attach to this one.
        process.env.PAYSANDBOX_URL = child.url;
        shared.exportedUrl = true;
      }
      return shared;
    });
    registry.running.set(key, pending);
    pending.catch(() => registry.running.delete(key));
  }
  const shared = await pending;
  shared.refs++;
  return { shared, mode };
}

async function release(key: string, shared: Shared): Promise<void> {
  shared.refs--;
  if (shared.refs > 0) return;
  registry.running.delete(key);
  registry.started.delete(key);
  if (shared.exportedUrl && process.env.PAYSANDBOX_URL === shared.child.url) delete process.env.PAYSANDBOX_URL;
  await shared.child.stop();
}

/** The default merchant of a running sandbox, through the loopback-only merchant list. */
async function defaultMerchant(url: string): Promise<MerchantRecord> {
  const merchants = await requestJson<MerchantRecord[]>(url, "GET", "/_sandbox/merchants");
  const found = merchants.find((merchant) => merchant.is_default);
  if (!found) throw new Error(`paysandbox: the sandbox at ${url} lists no default merchant`);
  return found;
}

function makeHandle(
  base: { url: string; apiKey: string; webPaymentsToken: string; webhookSecret: string },
  mode: Public.Sandbox["mode"],
  release: () => Promise<void>,
): Public.Sandbox {
  const closers = new Set<() => Promise<void>>();
  let stopped = false;
  const track = (close: () => Promise<void>) => {
    closers.add(close);
  };
  const context = (keys: { apiKey: string; webhookSecret: string }): MerchantContext => ({
    baseUrl: base.url,
    apiKey: keys.apiKey,
    webhookSecret: keys.webhookSecret,
    track,
  });
  const defaults = context(base);
  const assertRunning = (what: string) => {
    if (stopped) throw new Error(`paysandbox: ${what} after stop()`);
  };
  return {
    url: base.url,
    apiKey: base.apiKey,
    webPaymentsToken: base.webPaymentsToken,
    mode,
    clock: clockOf(defaults),
    outbox: outboxOf(defaults),
    webhooks: webhooksOf(defaults),
    outcomes: outcomesOf(defaults),
    faults: faultsOf(defaults),
    ...stateOf(defaults),
    async merchant(options = {}) {
      assertRunning("merchant()");
      const record = await requestJson<MerchantRecord>(base.url, "POST", "/_sandbox/merchants", {
        body: { name: options.name ?? "Test Merchant", email: options.email, settings: options.settings },
      });
      const keys = { apiKey: record.api_key, webhookSecret: record.webhook_secret };
      return {
        id: record.id,
        name: record.name,
        apiKey: record.api_key,
        webPaymentsToken: record.web_payments_token,
        webhookSecret: record.webhook_secret,
        clock: clockOf(context(keys)),
        outbox: outboxOf(context(keys)),
        webhooks: webhooksOf(context(keys)),
        outcomes: outcomesOf(context(keys)),
        faults: faultsOf(context(keys)),
        ...stateOf(context(keys)),
      };
    },
    async checkoutPage(options = {}) {
      assertRunning("checkoutPage()");
      const page = await serveCheckoutPage(base.url, options.merchant?.webPaymentsToken ?? base.webPaymentsToken);
      track(() => page.close());
      return page;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([...closers].map((close) => close()));
      closers.clear();
      await release();
    },
  };
}

export const startSandbox: typeof Public.startSandbox = async (options = {}) => {
  const args = [...(options.args ?? [])];
  if (!args.every((arg) => typeof arg === "string")) {
    throw new TypeError(`startSandbox({ args }) expects strings, got ${JSON.stringify(options.args)}`);
  }
  const key = JSON.stringify(args);
  const attachTo = options.url === undefined ? process.env.PAYSANDBOX_URL : options.url;
  const ownsAttachUrl = [...registry.started.values()].some((shared) => shared.child.url === attachTo);
  if (attachTo && !ownsAttachUrl) {
    const url = attachTo.replace(/\/+$/, "");
    let merchant: MerchantRecord;
    try {
      merchant = await defaultMerchant(url);
    } catch (error) {
      throw new Error(
        `paysandbox: cannot attach to the sandbox at ${url} (PAYSANDBOX_URL): ${(error as Error).message}`,
      );
    }
    return makeHandle(
      {
        url,
        apiKey: merchant.api_key,
        webPaymentsToken: merchant.web_payments_token,
        webhookSecret: merchant.webhook_secret,
      },
      "attached",
      async () => {},
    );
  }
  const { shared, mode } = await acquire(key, args, options.startTimeoutMs ?? 30_000, options.log ?? false);
  try {
    const self = await requestJson<{ webhook_secret: string }>(shared.child.url, "GET", "/self", {
      apiKey: shared.child.apiKey,
    });
    return makeHandle(
      {
        url: shared.child.url,
        apiKey: shared.child.apiKey,
        webPaymentsToken: shared.child.webPaymentsToken,
        webhookSecret: self.webhook_secret,
      },
      mode,
      () => release(key, shared),
    );
  } catch (error) {
    await release(key, shared);
    throw error;
  }
};
