import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { DEFAULT_CONFIG } from "../../lib/config";
import { memoryLogger } from "../../lib/logger";
import { pipeline } from "./index";

/** Enough of the app's deps for the pipeline, with every optional step on. */
const deps = {
  config: { ...DEFAULT_CONFIG, logRequests: true, rateLimit: "10/150", chaos: 0.5 },
  log: memoryLogger(),
  publicUrl: "http://localhost:7290",
  db: { dialect: "sqlite" },
  // The fault list as the pipeline reads it: nothing armed.
  services: { faults: { armed: false } },
} as unknown as AppDeps;

describe("pipeline", () => {
  test("no step makes Elysia prepare the query, headers or cookies of every request", () => {
    // Elysia reads from each hook's source which context members it uses; a hook that hands the
    // whole context to a function makes every request prepare all of them (+3 µs a request).
    const inference = (pipeline(deps) as unknown as { inference: Record<string, boolean> }).inference;
    expect(inference).toMatchObject({ query: false, headers: false, cookie: false });
    // The check sees it: a hook that takes the context whole.
    const whole = new Elysia().onError((context) => String(Object.keys(context)));
    expect((whole as unknown as { inference: Record<string, boolean> }).inference).toMatchObject({ query: true });
  });

  test("mounted twice, it runs once: every step is a named plugin", () => {
    const once = new Elysia().use(pipeline(deps));
    const twice = new Elysia().use(pipeline(deps)).use(pipeline(deps));
    // Before routing: the request log's clock, host, NUL, CORS, the controls' guard, the limits,
    // the targeted faults.
    expect(once.event.request?.length).toBe(7);
    expect(twice.event.request?.length).toBe(7);
    expect(twice.event.parse?.length).toBe(1);
    expect(twice.event.error?.length).toBe(1);
  });
});
