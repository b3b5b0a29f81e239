import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { requestLog } from "./request-log";

function appWith(logRequests: boolean) {
  const log = memoryLogger();
  const app = new Elysia()
    .use(requestLog({ config: { logRequests }, log }))
    .use(errorEnvelope({ log }))
    .get("/self", () => ({ ok: true }))
    .get("/page", () => new Response("<p>", { status: 203 }))
    .get("/gone", ({ set }) => {
      set.status = 410;
      return "gone";
    });
  const get = async (path: string) => {
    await (await app.handle(new Request(`http://localhost${path}`))).text();
    await Bun.sleep(5); // the line is written after the answer left
  };
  return { log, get };
}

describe("requestLog", () => {
  test("with --log-requests: one line per request with method, path (no query), status and time", async () => {
    const { log, get } = appWith(true);
    await get("/self?api_key=secret");
    await get("/page");
    await get("/gone");
    await get("/missing");
    expect(log.lines).toHaveLength(4);
    expect(log.lines[0]).toMatch(/^GET \/self 200 \d+\.\dms$/);
    expect(log.lines.join("\n")).not.toContain("secret");
    expect(log.lines[1]).toMatch(/^GET \/page 203 /);
    expect(log.lines[2]).toMatch(/^GET \/gone 410 /);
    expect(log.lines[3]).toMatch(/^GET \/missing 404 /);
  });

  test("without it: no line (and no hook)", async () => {
    const { log, get } = appWith(false);
    await get("/self");
    expect(log.lines).toEqual([]);
    expect(requestLog({ config: { logRequests: false }, log }).event.request ?? []).toHaveLength(0);
  });
});
