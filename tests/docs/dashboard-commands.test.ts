/**
 * The commands the dashboard shows with a copy button (the first-payment steps of an empty
 * transactions list, the keys page's curl pair), copied and pasted into bash in that order: the
 * tokenize command keeps the payment method's id in `$pm` and the charge command charges it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serve, setup, type TestContext } from "../support/app";

let ctx: TestContext;
let server: ReturnType<typeof serve>;
beforeAll(async () => {
  ctx = await setup();
  server = serve(ctx);
});
afterAll(() => server?.stop());

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&#96;": "`",
};

/** What the copy button named `what` puts on the clipboard. */
function copied(page: string, what: string): string {
  const button = new RegExp(`data-copy="([^"]*)"\\s+aria-label="Copy ${what}"`).exec(page);
  if (!button) throw new Error(`no copy button for ${what}`);
  return button[1]!.replace(/&(amp|lt|gt|quot|#39|#96);/g, (entity) => ENTITIES[entity]!);
}

async function paste(commands: string[]): Promise<any> {
  const child = Bun.spawn(["bash", "-c", commands.join("\n")], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 20_000);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  expect(err).toBe("");
  expect(code).toBe(0);
  return JSON.parse(out);
}

describe("the dashboard's copyable commands", () => {
  test("the empty transactions list's and the keys page's curl pairs charge a card when pasted as copied", async () => {
    for (const path of ["/dashboard/transactions", "/dashboard/keys"]) {
      const page = await (await fetch(`${server.url}${path}`)).text();
      const commands = [copied(page, "tokenize command"), copied(page, "charge command")];
      expect(commands.join("\n")).not.toContain("<id");
      const charged = await paste(commands);
      expect(charged).toMatchObject({ success: true, total: 10.5, last_four: "1111" });
    }
    const list = await ctx.call("GET", "/transaction");
    expect(list.body.total).toBe(2);
  }, 30_000);
});
