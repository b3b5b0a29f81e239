/**
 * The commands the sandbox shows to copy — the first-payment steps of the dashboard's empty
 * transactions list, the keys page's curl pair, the start banner's — pasted into bash in that
 * order: the tokenize command keeps the payment method's id in `$pm` and the charge command
 * charges it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serve, setup, type TestContext } from "../support/app";
import { FROM_SOURCES, startServer } from "../support/process";

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

  test("the start banner's four curl lines charge a card when pasted", async () => {
    const server = await startServer([...FROM_SOURCES, "--port", "0", "--db", ":memory:"]);
    try {
      const banner = server.stdout();
      const start = banner.indexOf("  Charge with curl");
      const lines = banner
        .slice(banner.indexOf("\n", start) + 1)
        .split("\n")
        .slice(0, 4)
        .map((line) => line.replace(/^ {4}/, ""));
      expect(lines[0]).toStartWith("pm=$(curl");
      expect(lines.join("\n")).not.toContain("<id");
      expect(await paste([lines.join("\n")])).toMatchObject({ success: true, total: 10.5 });
    } finally {
      await server.stop();
    }
  }, 30_000);
});
