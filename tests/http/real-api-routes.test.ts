/**
 * Every merchant-facing operation of the real service (tests/fixtures/real-api/operations.json,
 * with where it came from) is routed by the app, but those listed below as other work, each with
 * its issue. Paths are compared by shape: `{id}` and `:id` alike, a trailing slash ignored. The
 * list fails when it goes stale: an operation that gets routed must leave it.
 */
import { describe, expect, test } from "bun:test";
import { setup } from "../support/app";
import { REAL_OPERATIONS } from "../support/real-api";

/** Operations still to come, each with the issue that will bring it. */
const OTHER_WORK: Record<string, string> = {
  // Card-present terminals: later work (issue 28 leaves them out).
  "POST /terminal/charge": "terminal",
  "POST /terminal/charge/queue": "terminal",
  "POST /terminal/credit": "terminal",
  "POST /terminal/print": "terminal",
  "POST /terminal/prompt/signature": "terminal",
  "POST /terminal/promptChoice": "terminal",
  "POST /terminal/promptInput": "terminal",
  "POST /terminal/refund": "terminal",
  "GET /terminal/register": "terminal",
  "POST /terminal/tokenize": "terminal",
  "POST /terminal/void": "terminal",
  "POST /terminal/void-or-refund": "terminal",
  "GET /terminal/{}/status/{}": "terminal",
};

const shape = (path: string) => path.replace(/\/$/, "").replace(/\{[^}]+\}|:[A-Za-z_]\w*/g, "{}");

describe("the real service's operations", () => {
  test("every one is routed, but the few listed as other work, and none of those is", async () => {
    const ctx = await setup();
    const routed = new Set(ctx.app.routes.map((route) => `${route.method} ${shape(route.path)}`));
    const operations = [...new Set(REAL_OPERATIONS.map((op) => `${op.method} ${shape(op.path)}`))];
    expect(operations.length).toBeGreaterThan(80);
    const missing = operations.filter((op) => !routed.has(op) && !(op in OTHER_WORK));
    expect(missing).toEqual([]);
    // Every exclusion names an operation of the real service (no typo hides a missing route).
    expect(Object.keys(OTHER_WORK).filter((op) => !operations.includes(op))).toEqual([]);
    // An exclusion whose operation is now routed is stale: it would hide a regression later.
    expect(Object.keys(OTHER_WORK).filter((op) => routed.has(op))).toEqual([]);
  });
});
