/**
 * Test setup shared by every suite: an app on its own database (SQLite :memory:, or a fresh
 * PostgreSQL database with PAYSANDBOX_TEST_DB=postgres: tests/support/database.ts), a call()
 * helper that goes through app.handle exactly like a real request, and fixtures for the common flows.
 */
import type { Server } from "bun";
import { buildDeps, composeApp, type App } from "../../src/entry/app";
import type { AppDeps } from "../../src/http/deps";
import type { Config } from "../../src/lib/config";
import { openTestDatabase } from "./database";
import { SandboxClock } from "../../src/services/clock";
import { memoryLogger } from "../../src/lib/logger";
import { waitFor as waitUntil } from "./wait";

export const TOKEN = "sandbox_web_payments_token";
export const API_KEY = "sandbox_api_key";

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Raw text body, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
  /** The API key to send; false for none. Defaults to the context's key. */
  auth?: string | false;
}

export interface TestContext {
  app: App;
  deps: AppDeps;
  log: ReturnType<typeof memoryLogger>;
  apiKey: string;
  token: string;
  merchantId: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
}

export async function setup(
  options: {
    config?: Partial<Config>;
    publicUrl?: string;
    /** Real time as the clock sees it. */ now?: () => number;
  } = {},
): Promise<TestContext> {
  const db = await openTestDatabase();
  const log = memoryLogger();
  const clock = options.now ? new SandboxClock(db, options.now) : undefined;
  const deps = await buildDeps({
    db,
    config: options.config,
    log,
    clock,
    publicUrl: options.publicUrl ?? "http://localhost:7290",
  });
  const app = composeApp(deps);
  const merchant = await deps.services.merchants.getDefault();
  const ctx: TestContext = {
    app,
    deps,
    log,
    apiKey: merchant.api_key,
    token: merchant.web_payments_token,
    merchantId: merchant.id,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
      const auth = opts.auth === undefined ? ctx.apiKey : opts.auth;
      if (auth !== false) headers.authorization = `Bearer ${auth}`;
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
  };
  return ctx;
}

/** A second merchant in the same sandbox, for isolation tests. */
export async function otherMerchant(
  ctx: TestContext,
): Promise<{ id: string; api_key: string; web_payments_token: string }> {
  const res = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Other" }, auth: false });
  if (res.status !== 200) throw new Error(`could not create a merchant: ${JSON.stringify(res.body)}`);
  return res.body;
}

export const CARD = {
  method: "card",
  card_number: "4111111111111111",
  card_cvv: "123",
  card_exp: "1230",
  person_name: "Ada Lovelace",
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
  address_zip: "32822",
} as const;

export const BANK = {
  method: "bank",
  person_name: "Ada Lovelace",
  bank_account: "9876543210",
  bank_routing: "021000021",
  bank_type: "savings",
  bank_holder_type: "personal",
  bank_name: "Test Bank",
  email: "ada@example.com",
} as const;

/** Tokenizes (the test Visa by default) and returns the payment method record. */
export async function tokenize(ctx: TestContext, overrides: Record<string, unknown> = {}, token = ctx.token) {
  const res = await ctx.call("POST", `/webpayment/${token}/tokenize`, { body: { ...CARD, ...overrides }, auth: false });
  if (res.status !== 200) throw new Error(`tokenize failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Tokenizes and charges; returns the charge response. */
export async function charge(ctx: TestContext, total: number | string = 10, overrides: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, overrides);
  return ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
}

/** Serves a test context's app on a free loopback port (for browsers and real HTTP clients). */
export function serve(ctx: TestContext): { url: string; server: Server<unknown>; stop: () => Promise<void> } {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: ctx.app.fetch });
  const url = `http://127.0.0.1:${server.port}`;
  ctx.deps.publicUrl = url;
  return { url, server, stop: () => server.stop(true) };
}

/** Resolves when fn() is truthy, polling; rejects after timeoutMs (tests/support/wait.ts, positional form). */
export function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 5000, what = "condition"): Promise<T> {
  return waitUntil(fn, { timeoutMs, what });
}
