/**
 * What a new user meets first: the README quick start, pasted into a shell twice in a row, and
 * the icon every browser asks for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serve, setup, type TestContext } from "../support/app";

const README = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");

/** The commands of the quick start's first sh block, backslash continuations joined. */
function quickStartCommands(): string[] {
  const section = README.slice(README.indexOf("## Quick start"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README.md: the quick start has no sh block");
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("curl "));
}

let ctx: TestContext;
let server: ReturnType<typeof serve>;
beforeAll(async () => {
  ctx = await setup();
  server = serve(ctx);
});
afterAll(() => server.stop());

async function sh(command: string): Promise<any> {
  const child = Bun.spawn(["sh", "-c", command.replaceAll("http://localhost:7290", server.url)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${command}\nexited ${code}: ${err}`);
  return JSON.parse(out);
}

describe("the README quick start", () => {
  test("runs as written twice in a row: two tokens, two charges, both listed", async () => {
    const [tokenize, charge, list] = quickStartCommands();
    expect(charge).toContain("<id from tokenize>");
    const charges: any[] = [];
    for (let run = 0; run < 2; run++) {
      const pm = await sh(tokenize!);
      expect(pm.card_last_four).toBe("1111");
      const charged = await sh(charge!.replace("<id from tokenize>", pm.id));
      expect(charged).toMatchObject({ success: true, total: 10.5, payment_method_id: pm.id });
      charges.push(charged);
    }
    expect(charges[0].id).not.toBe(charges[1].id);
    const listed = await sh(list!);
    expect(listed.data.map((t: { id: string }) => t.id).slice(0, 2)).toEqual([charges[1].id, charges[0].id]);
  }, 30_000);
});

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
