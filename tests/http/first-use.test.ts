/**
 * What a new user meets first besides the README quick start (tests/docs/readme.test.ts pastes
 * it into a shell twice): the icon every browser asks for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serve, setup, type TestContext } from "../support/app";

let ctx: TestContext;
let server: ReturnType<typeof serve>;
beforeAll(async () => {
  ctx = await setup();
  server = serve(ctx);
});
afterAll(() => server.stop());

describe("/favicon.ico", () => {
  test("answers a small, cacheable Windows icon without a key, and 304 to its ETag", async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    expect(res.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const view = new DataView(bytes.buffer);
    // ICONDIR: reserved 0, type 1 (icon), 1 image of 32×32 at 32 bits per pixel, data where it says.
    expect([view.getUint16(0, true), view.getUint16(2, true), view.getUint16(4, true)]).toEqual([0, 1, 1]);
    expect([bytes[6], bytes[7], view.getUint16(12, true)]).toEqual([32, 32, 32]);
    expect(view.getUint32(14, true) + view.getUint32(18, true)).toBe(bytes.length);
    expect(bytes.length).toBeLessThan(5000);
    // Not blank: some pixels are opaque, some transparent.
    const alphas = new Set<number>();
    for (let i = 22 + 40 + 3; i < 22 + 40 + 32 * 32 * 4; i += 4) alphas.add(bytes[i]!);
    expect([...alphas].sort((a, b) => a - b)).toEqual([0, 255]);
    const again = await fetch(`${server.url}/favicon.ico`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });
});
