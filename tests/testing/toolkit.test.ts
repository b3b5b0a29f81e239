/**
 * paysandbox/testing itself (from its sources, under Bun): starting, sharing, attaching and
 * stopping the sandbox process; merchants and their isolation; the clock, outbox and webhook
 * helpers against a real sandbox; the test data against the processor's table.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_BANK, TEST_CARDS } from "../../packages/rules/test-data";
import type { Merchant, Sandbox, TestBankAccount } from "../../packages/testing/index";
import { bank, cards, startSandbox } from "../../packages/testing/src/index";
import { signatureHeader } from "../../packages/webhooks/signing";
import { buildServerBundle, buildTesting } from "../../scripts/build-testing";
import { SERVER_BUNDLE_FILE, SERVER_TEMPLATE_FILE, serverFiles } from "../../packages/testing/src/server-bundle";
import { waitFor, waitUntilDown } from "../support/wait";

const ROOT = join(import.meta.dir, "..", "..");

async function json(url: string, init: { method?: string; key?: string; body?: unknown } = {}) {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function charge(
  sandbox: Sandbox,
  merchant: Pick<Merchant, "apiKey" | "webPaymentsToken">,
  number: string,
  total = 10,
) {
  const method = await json(`${sandbox.url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
    body: { method: "card", card_number: number, card_exp: cards.visa.approve.exp, person_name: "Ada Lovelace" },
  });
  expect(method.status).toBe(200);
  return json(`${sandbox.url}/charge`, { key: merchant.apiKey, body: { payment_method_id: method.body.id, total } });
}

describe("startSandbox()", () => {
  test("starts on a free loopback port with a temporary database and the default merchant's keys", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      expect(sandbox.mode).toBe("started");
      expect(sandbox.url).toMatch(/^http:\/\/localhost:\d+$/);
      expect(sandbox.apiKey).toBe("sandbox_api_key");
      expect(sandbox.webPaymentsToken).toBe("sandbox_web_payments_token");
      const self = await json(`${sandbox.url}/self`, { key: sandbox.apiKey });
      expect(self.status).toBe(200);
      expect(self.body.is_default).toBe(true);
    } finally {
      await sandbox.stop();
    }
    expect(await fetch(`${sandbox.url}/self`).catch(() => "refused")).toBe("refused");
  });

  test("a second call reuses the process; stop() is counted and the last one stops it", async () => {
    const first = await startSandbox({ url: null });
    const second = await startSandbox({ url: null });
    expect(second.mode).toBe("shared");
    expect(second.url).toBe(first.url);
    expect(process.env.PAYSANDBOX_URL).toBe(first.url);
    await first.stop();
    await first.stop(); // a handle releases once
    expect((await json(`${second.url}/self`, { key: second.apiKey })).status).toBe(200);
    await second.stop();
    expect(await fetch(`${second.url}/self`).catch(() => "refused")).toBe("refused");
    expect(process.env.PAYSANDBOX_URL).toBeUndefined();
  });

  test("other flags get a process of their own, started with them", async () => {
    const plain = await startSandbox({ url: null });
    const limited = await startSandbox({ url: null, args: ["--rate-limit", "2/2"] });
    try {
      expect(limited.url).not.toBe(plain.url);
      expect(limited.mode).toBe("started");
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await json(`${limited.url}/self`, { key: limited.apiKey })).status);
      expect(statuses).toContain(429);
    } finally {
      await limited.stop();
      await plain.stop();
    }
  });

  test("attaches to PAYSANDBOX_URL (a sandbox another process started) and leaves it running on stop()", async () => {
    const owner = await startSandbox({ url: null });
    try {
      // What a test worker started after a global setup does: a new process, the same environment.
      const script = join(mkdtempSync(join(tmpdir(), "paysandbox-attach-")), "attach.ts");
      writeFileSync(
        script,
        `import { startSandbox } from ${JSON.stringify(join(ROOT, "packages", "testing", "src", "index.ts"))};
         const sandbox = await startSandbox();
         const merchant = await sandbox.merchant();
         console.log(JSON.stringify({ mode: sandbox.mode, url: sandbox.url, merchant: merchant.id }));
         await sandbox.stop();`,
      );
      const child = Bun.spawnSync([process.execPath, script], { env: { ...process.env } });
      const seen = JSON.parse(child.stdout.toString()) as { mode: string; url: string; merchant: string };
      expect(seen.mode).toBe("attached");
      expect(seen.url).toBe(owner.url);
      const merchants = (await json(`${owner.url}/_sandbox/merchants`)).body as Array<{ id: string }>;
      expect(merchants.map((merchant) => merchant.id)).toContain(seen.merchant);
      expect((await json(`${owner.url}/self`, { key: owner.apiKey })).status).toBe(200);
    } finally {
      await owner.stop();
    }
  });

  test("a sandbox that cannot start rejects with the reason from its stderr, and leaves nothing running", async () => {
    const error = await startSandbox({ url: null, args: ["--chaos", "7"] }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("exited (code 1) before it was ready");
    expect((error as Error).message).toContain("--chaos must be between 0 and 1, got 7");
  });

  test("readiness is bounded: a sandbox slower than startTimeoutMs is killed and reported", async () => {
    const error = await startSandbox({ url: null, args: ["--quiet"], startTimeoutMs: 1 }).catch((e: Error) => e);
    expect((error as Error).message).toContain("did not report ready within 1 ms");
  });

  test("an unreachable PAYSANDBOX_URL is a clear error", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    const error = await startSandbox({ url: `http://127.0.0.1:${port}` }).catch((e: Error) => e);
    expect((error as Error).message).toContain(`cannot attach to the sandbox at http://127.0.0.1:${port}`);
  });

  test("the sandbox stops when the process that started it is killed outright (SIGKILL)", async () => {
    const script = join(mkdtempSync(join(tmpdir(), "paysandbox-orphan-")), "start.ts");
    writeFileSync(
      script,
      `import { startSandbox } from ${JSON.stringify(join(ROOT, "packages", "testing", "src", "index.ts"))};
       const sandbox = await startSandbox({ url: null });
       const self = await fetch(sandbox.url + "/_sandbox/merchants").then((r) => r.json());
       console.log(JSON.stringify({ url: sandbox.url, ok: self.length > 0 }));
       setInterval(() => {}, 1000);`,
    );
    const parent = Bun.spawn([process.execPath, script], {
      stdout: "pipe",
      env: { ...process.env, PAYSANDBOX_URL: "" },
    });
    const reader = parent.stdout.getReader();
    const { value } = await reader.read();
    const { url } = JSON.parse(new TextDecoder().decode(value)) as { url: string };
    parent.kill("SIGKILL");
    await parent.exited;
    await waitUntilDown(`${url}/self`, { timeoutMs: 15_000 });
  });

  test("a test process that forgets stop() still exits, and takes its sandbox with it", async () => {
    // The built toolkit, under Node, from these sources. Built beside packages/testing/dist, not into it:
    // docs-examples.test.ts may be packing that directory at the same time (npm test runs files in
    // parallel). Three levels below the root like dist/, so it finds the repository the same way.
    const outdir = join(ROOT, "test-artifacts", "toolkit-build", "dist");
    await buildTesting(outdir);
    const script = join(mkdtempSync(join(tmpdir(), "paysandbox-forgot-")), "forgot.mjs");
    writeFileSync(
      script,
      `import { startSandbox } from ${JSON.stringify(join(outdir, "index.js"))};
       const sandbox = await startSandbox({ url: null });
       console.log(sandbox.url);`,
    );
    const child = Bun.spawn(["node", script], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const code = await child.exited;
    clearTimeout(timer);
    const url = (await new Response(child.stdout).text()).trim();
    expect(code).toBe(0);
    expect(url).toMatch(/^http:\/\/localhost:\d+$/);
    await waitUntilDown(`${url}/self`, { timeoutMs: 15_000 });
  });
});

describe("the prebuilt server (testing/dist/server)", () => {
  test("is chosen while fresh, starts from any folder on its template database and serves its browser files, icon and OpenAPI UI", async () => {
    // Beside packages/testing/dist, not into it (docs-examples.test.ts may be packing that).
    const outdir = join(ROOT, "test-artifacts", "server-bundle", "server");
    await buildServerBundle(outdir);
    const { script, template } = serverFiles(ROOT, outdir, []);
    expect(script).toBe(join(outdir, SERVER_BUNDLE_FILE));
    expect(template).toBe(join(outdir, SERVER_TEMPLATE_FILE));
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-bundle-run-"));
    copyFileSync(template!, join(dir, "db.sqlite"));
    const child = Bun.spawn(
      [process.execPath, script, "--port", "0", "--db", join(dir, "db.sqlite"), "--ready-json", "--quiet"],
      { cwd: dir, stdout: "pipe", stderr: "inherit" },
    );
    try {
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      const ready = JSON.parse(new TextDecoder().decode(value).split("\n")[0]!) as { url: string; api_key: string };
      const self = await json(`${ready.url}/self`, { key: ready.api_key });
      expect(self.body.is_default).toBe(true);
      for (const [path, type] of [
        ["/payjs.js", "javascript"],
        ["/payjs.d.ts", "typescript"],
        ["/favicon.ico", "image/x-icon"],
        ["/openapi/assets/swagger-ui-bundle.js", "javascript"],
        ["/openapi/assets/swagger-ui.css", "text/css"],
      ] as const) {
        const response = await fetch(`${ready.url}${path}`);
        expect(`${path} ${response.status}`).toBe(`${path} 200`);
        expect(response.headers.get("content-type")).toContain(type);
        expect((await response.bytes()).length).toBeGreaterThan(1000);
      }
    } finally {
      child.kill();
      await child.exited;
    }
  }, 60_000);
});

describe("merchants and helpers", () => {
  let sandbox: Sandbox;
  let one: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    sandbox = await startSandbox({ url: null });
    [one, other] = await Promise.all([sandbox.merchant({ name: "One" }), sandbox.merchant({ name: "Other" })]);
  });
  afterAll(() => sandbox.stop());

  test("merchant() makes a merchant with keys of its own; its records are invisible to the other", async () => {
    expect(one.name).toBe("One");
    expect(new Set([one.apiKey, other.apiKey, sandbox.apiKey]).size).toBe(3);
    expect(one.webhookSecret).not.toBe(other.webhookSecret);
    const sale = await charge(sandbox, one, cards.visa.approve.number);
    expect(sale.status).toBe(200);
    expect((await json(`${sandbox.url}/transaction/${sale.body.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await json(`${sandbox.url}/transaction`, { key: other.apiKey })).body.total).toBe(0);
    expect((await json(`${sandbox.url}/transaction`, { key: one.apiKey })).body.total).toBe(1);
  });

  test("a suite can make more merchants than a long-lived sandbox's default cap of 1,000", async () => {
    // 1,001 merchants in batches: the server's default cap would refuse the last one with a 422.
    const made: Merchant[] = [];
    for (let batch = 0; made.length < 1_001; batch++) {
      const size = Math.min(50, 1_001 - made.length);
      made.push(...(await Promise.all(Array.from({ length: size }, () => sandbox.merchant()))));
    }
    expect(new Set(made.map((m) => m.id)).size).toBe(1_001);
  });

  test("clock.advance(days) settles that merchant's batch and lands its deposit, and no one else's clock moves", async () => {
    const merchant = await sandbox.merchant();
    const sale = await charge(sandbox, merchant, cards.mastercard.approve.number, 20);
    const before = await other.clock.now();
    const moved = await merchant.clock.advance(2);
    expect(moved.ran).toEqual({ batches: 1, settled: 1, deposits: 1 });
    const settled = await json(`${sandbox.url}/transaction/${sale.body.id}`, { key: merchant.apiKey });
    expect(settled.body.settled_at).not.toBeNull();
    expect(Date.parse(moved.now.replace(" ", "T") + "Z") - Date.parse(before.replace(" ", "T") + "Z")).toBeGreaterThan(
      2 * 86_400_000 - 60_000,
    );
    const otherNow = await other.clock.now();
    expect(Date.parse(otherNow.replace(" ", "T") + "Z") - Date.parse(before.replace(" ", "T") + "Z")).toBeLessThan(
      60_000,
    );
    expect(merchant.clock.advance(-1)).rejects.toThrow("expects a number of days ≥ 0, got -1");
  });

  test("clock.advance() runs a due webhook retry", async () => {
    const merchant = await sandbox.merchant();
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as { port: number }).port;
    dead.close(); // nothing listens there now: every attempt fails
    const hook = await json(`${sandbox.url}/webhook`, {
      key: merchant.apiKey,
      body: { target_url: `http://127.0.0.1:${port}/hooks`, event: "create_transaction" },
    });
    await charge(sandbox, merchant, cards.visa.approve.number);
    const attempts = async (): Promise<number> => {
      const page = await json(`${sandbox.url}/webhook/${hook.body.id}/deliveries`, { key: merchant.apiKey });
      return page.body.data[0]?.attempts ?? 0;
    };
    await waitFor(async () => (await attempts()) >= 1, {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "the first attempt",
    });
    expect(await attempts()).toBe(1);
    await merchant.clock.advance(11 / 86_400); // past the first retry (10 s), short of the second (1 min after it)
    await waitFor(async () => (await attempts()) >= 2, { timeoutMs: 10_000, intervalMs: 50, what: "the retry" });
    expect(await attempts()).toBe(2);
  });

  test("outbox.waitFor() finds a merchant's e-mail by recipient and subject, each one once", async () => {
    const merchant = await sandbox.merchant();
    const sale = await charge(sandbox, merchant, cards.visa.approve.number, 12.34);
    for (const email of ["ada@example.com", "ada@example.com", "bob@example.com"]) {
      const sent = await json(`${sandbox.url}/transaction/${sale.body.id}/receipt-email`, {
        key: merchant.apiKey,
        body: { email },
      });
      expect(sent.status).toBe(200);
    }
    const first = await merchant.outbox.waitFor({ to: "ADA@example.com", subject: "$12.34" });
    const second = await merchant.outbox.waitFor({ to: "ada@example.com", subject: /\$12\.34/ });
    expect(first.to).toBe("ada@example.com");
    expect(second.id).not.toBe(first.id);
    expect(first.text).toContain("1111");
    const bob = await merchant.outbox.waitFor({ to: "bob@example.com" });
    expect(bob.to).toBe("bob@example.com");
    expect((await merchant.outbox.list()).length).toBe(3);
    // The other merchant's outbox is its own.
    expect(other.outbox.waitFor({ to: "ada@example.com", timeoutMs: 200 })).rejects.toThrow(
      "The merchant's outbox holds 0",
    );
  });

  test("a merchant made with receipt options gets e-mails with its Cc and Reply-To, as typed", async () => {
    const merchant = await sandbox.merchant({
      settings: { receipt_cc: ["books@example.com"], receipt_reply_to: "help@example.com", receipt_footer: "Thanks!" },
    });
    const sale = await charge(sandbox, merchant, cards.visa.approve.number, 7.5);
    const sent = await json(`${sandbox.url}/transaction/${sale.body.id}/receipt-email`, {
      key: merchant.apiKey,
      body: { email: "ada@example.com" },
    });
    expect(sent.status).toBe(200);
    const email = await merchant.outbox.waitFor({ to: "ada@example.com" });
    expect(email.cc).toEqual(["books@example.com"]);
    expect(email.reply_to).toBe("help@example.com");
    expect(email.text).toContain("Thanks!");
  });

  test("outbox.waitFor() times out with a list of what did arrive", async () => {
    const merchant = await sandbox.merchant();
    const sale = await charge(sandbox, merchant, cards.visa.approve.number, 5);
    await json(`${sandbox.url}/transaction/${sale.body.id}/receipt-email`, {
      key: merchant.apiKey,
      body: { email: "carol@example.com" },
    });
    const error = await merchant.outbox
      .waitFor({ to: "dave@example.com", subject: "Refund", timeoutMs: 500 })
      .catch((e: Error) => e);
    expect((error as Error).message).toContain(
      'no e-mail to dave@example.com with a subject containing "Refund" arrived within 500 ms',
    );
    expect((error as Error).message).toContain("- to carol@example.com:");
  });

  test("webhooks.receiver() gets signed deliveries, verified with the merchant's secret", async () => {
    const merchant = await sandbox.merchant();
    const receiver = await merchant.webhooks.receiver();
    const sale = await charge(sandbox, merchant, cards.visa.approve.number, 7);
    const created = await receiver.waitFor<{ id: string; total: number }>("create_transaction", {
      where: (record) => record.id === sale.body.id,
    });
    expect(created.record.total).toBe(7);
    expect(created.deliveryId).toBeTruthy();
    expect(created.headers["paysandbox-signature"]).toMatch(/t=\d+,v2=[0-9a-f]{64}/);
    expect(receiver.deliveries.length).toBeGreaterThan(0);
    // Another merchant's deliveries never arrive here.
    await charge(sandbox, other, cards.visa.approve.number, 8);
    expect(
      receiver.waitFor<{ total: number }>("create_transaction", {
        where: (record) => record.total === 8,
        timeoutMs: 700,
      }),
    ).rejects.toThrow(
      `no create_transaction webhook matching the where() test arrived at ${receiver.url} within 700 ms`,
    );
    await receiver.close();
    const hooks = await json(`${sandbox.url}/webhook`, { key: merchant.apiKey });
    expect(hooks.body.data).toEqual([]);
  });

  test("a delivery whose signature does not verify is answered 400 and fails waitFor() at once", async () => {
    const merchant = await sandbox.merchant();
    const receiver = await merchant.webhooks.receiver();
    const body = JSON.stringify({ id: "forged" });
    const signature = signatureHeader(
      "whsec_not_the_merchants",
      { deliveryId: "forged-delivery", event: "create_customer", body },
      Math.floor(Date.now() / 1000),
    );
    const waiting = receiver.waitFor("create_customer").catch((error: Error) => error);
    const answer = await fetch(receiver.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "paysandbox-event-name": "create_customer",
        "paysandbox-signature": signature,
      },
      body,
    });
    expect(answer.status).toBe(400);
    expect(((await waiting) as Error).message).toContain("does not verify with the merchant's webhook secret");
    expect(receiver.deliveries).toEqual([]);
    await receiver.close();
  });

  test("the default merchant's helpers act on the default merchant", async () => {
    const receiver = await sandbox.webhooks.receiver({ events: "create_customer" });
    const customer = await json(`${sandbox.url}/customer`, {
      key: sandbox.apiKey,
      body: { firstname: "Grace", email: "grace@example.com" },
    });
    const delivery = await receiver.waitFor<{ id: string }>("create_customer");
    expect(delivery.record.id).toBe(customer.body.id);
    expect((await sandbox.clock.advance(0)).now).toBe(await sandbox.clock.now());
  });

  test("checkoutPage() serves the example page on its own origin, pointed at the sandbox and the merchant", async () => {
    const page = await sandbox.checkoutPage({ merchant: one });
    const html = await (await fetch(page.url)).text();
    expect(new URL(page.url).origin).not.toBe(new URL(sandbox.url).origin);
    expect(html).toContain(`<script src="${sandbox.url}/payjs.js"></script>`);
    expect(html).toContain(`const TOKEN = "${one.webPaymentsToken}"`);
    await page.close();
    expect(await fetch(page.url).catch(() => "closed")).toBe("closed");
  });
});

/** Tokenizes a test bank account for `merchant` and charges it `total`. */
async function chargeBank(
  url: string,
  merchant: { webPaymentsToken: string; apiKey: string },
  account: TestBankAccount,
  total: number,
) {
  const method = await json(`${url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
    body: {
      method: "bank",
      person_name: "Ada Lovelace",
      bank_routing: account.routing,
      bank_account: account.account,
      bank_type: account.type,
      bank_holder_type: account.holderType,
    },
  });
  return json(`${url}/charge`, { key: merchant.apiKey, body: { payment_method_id: method.body.id, total } });
}

describe("cards and bank", () => {
  test("every test card of the processor is there once, by brand and outcome, ready to type", () => {
    const listed = Object.values(cards).flatMap((brand) => Object.values(brand));
    expect(listed.map((card) => card.number).sort()).toEqual(TEST_CARDS.map((card) => card.number).sort());
    for (const card of listed) {
      expect(card.cvv).toHaveLength(card.brand === "amex" ? 4 : 3);
      expect(card.exp).toBe(card.month + card.year.slice(2));
      expect(Number(card.year)).toBeGreaterThan(new Date().getUTCFullYear());
    }
    expect(cards.visa.approve.number).toBe("4111111111111111");
    expect(cards.visa.insufficientFunds.outcome).toBe("insufficient_funds");
    expect(cards.visa.debit).toMatchObject({ number: "4000056655665556", funding: "debit", outcome: "approve" });
    expect(cards.visa.reissued).toMatchObject({ number: "4000000000007718", outcome: "approve" });
    expect(cards.mastercard.newExpiry).toMatchObject({ number: "5200000000007705", outcome: "approve" });
    expect(cards.visa.disputeFraud).toMatchObject({ number: "4000000000000259", outcome: "approve" });
    expect(cards.discover.disputeSubscriptionCanceled).toMatchObject({ number: "6011000000000251" });
    expect(cards.amex.prepaid).toMatchObject({ funding: "prepaid", cvv: "1234" });
    expect(bank.approve.routing).toBe(TEST_BANK.routing);
    expect(bank.approve.account).toBe(TEST_BANK.approvingAccount);
    const returning = TEST_BANK.accounts.filter((entry) => entry.achReturn);
    expect(
      Object.values(bank.returned)
        .map((account) => account.account)
        .sort(),
    ).toEqual(returning.map((entry) => entry.account).sort());
    expect(bank.returned.R10.achReturn).toEqual({ code: "R10", businessDays: 5 });
    expect(bank.returned.R01AtSettlement.achReturn).toEqual({ code: "R01", businessDays: 0 });
  });

  test("a bank.returned account approves, then its bank returns it on the sandbox clock", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      const sale = await chargeBank(sandbox.url, merchant, bank.returned.R10, 12.5);
      expect(sale.status).toBe(200);
      const read = () => json(`${sandbox.url}/transaction/${sale.body.id}`, { key: merchant.apiKey, method: "GET" });
      expect((await read()).body.is_voided).toBe(false);
      await merchant.clock.advance(21);
      const after = (await read()).body;
      expect(after.is_voided).toBe(true);
      expect(after.child_transactions.map((child: { decline_code: string }) => child.decline_code)).toContain("R10");
    } finally {
      await sandbox.stop();
    }
  });

  test("each card and bank account does what its name says when charged", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      for (const brand of Object.values(cards)) {
        for (const card of Object.values(brand)) {
          const method = await json(`${sandbox.url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
            body: {
              method: "card",
              card_number: card.number,
              card_cvv: card.cvv,
              card_exp: card.exp,
              person_name: "Ada",
            },
          });
          expect(method.status).toBe(200);
          const sale = await json(`${sandbox.url}/charge`, {
            key: merchant.apiKey,
            body: { payment_method_id: method.body.id, total: 1 },
          });
          expect([card.number, sale.status]).toEqual([card.number, card.outcome === "approve" ? 200 : 402]);
        }
      }
      const { returned, ...atOnce } = bank;
      for (const account of [...Object.values(atOnce), ...Object.values(returned)]) {
        const sale = await chargeBank(sandbox.url, merchant, account, 1);
        expect(sale.status).toBe(account.outcome === "approve" ? 200 : 402);
      }
    } finally {
      await sandbox.stop();
    }
  });
});

test("the database of a started sandbox is a temporary file, removed on stop()", async () => {
  const dirs = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("paysandbox-test-")));
  const before = dirs();
  const sandbox = await startSandbox({ url: null });
  const created = [...dirs()].filter((name) => !before.has(name));
  expect(created.some((name) => existsSync(join(tmpdir(), name, "sandbox.sqlite")))).toBe(true);
  await sandbox.stop();
  expect(created.filter((name) => existsSync(join(tmpdir(), name)))).toEqual([]);
});

describe("merchant.outcomes", () => {
  test("next(pm, outcomes) arms the card's next charges in order; pending() and clear() see them", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      const method = await json(`${sandbox.url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
        body: {
          method: "card",
          card_number: cards.visa.approve.number,
          card_exp: cards.visa.approve.exp,
          person_name: "Ada",
        },
      });
      const armed = await merchant.outcomes.next(method.body, ["insufficient_funds", "approve", "lost_card"]);
      expect(armed).toEqual({
        payment_method_id: method.body.id,
        outcomes: ["insufficient_funds", "approve", "lost_card"],
      });
      const sale = () =>
        json(`${sandbox.url}/charge`, { key: merchant.apiKey, body: { payment_method_id: method.body.id, total: 1 } });
      expect((await sale()).body.decline_code).toBe("insufficient_funds");
      expect((await sale()).status).toBe(200);
      expect(await merchant.outcomes.pending()).toEqual([
        { payment_method_id: method.body.id, outcomes: ["lost_card"] },
      ]);
      // Another merchant's helpers see none of it.
      expect(await sandbox.outcomes.pending()).toEqual([]);
      expect(await merchant.outcomes.clear(method.body.id)).toBe(1);
      expect((await sale()).status).toBe(200);
      expect(merchant.outcomes.next(method.body.id, ["nope" as "approve"])).rejects.toThrow("is not an outcome");
    } finally {
      await sandbox.stop();
    }
  });
});

describe("merchant.faults", () => {
  test('next("POST /charge", { kind }) fails the next charge that way; list() shows it fired', async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      const method = await json(`${sandbox.url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
        body: {
          method: "card",
          card_number: cards.visa.approve.number,
          card_exp: cards.visa.approve.exp,
          person_name: "Ada",
        },
      });
      const fault = await merchant.faults.next("POST /charge", { kind: "unavailable_503" });
      expect(fault).toMatchObject({ route: "POST /charge", kind: "unavailable_503", remaining: 1 });
      const sale = () =>
        json(`${sandbox.url}/charge`, { key: merchant.apiKey, body: { payment_method_id: method.body.id, total: 1 } });
      expect((await sale()).status).toBe(503);
      expect((await sale()).status).toBe(200);
      const listed = await merchant.faults.list();
      expect(listed.pending).toEqual([]);
      expect(listed.fired).toEqual([expect.objectContaining({ kind: "unavailable_503", path: "/charge" })]);
      expect(await merchant.faults.clear()).toBe(0);
      expect(merchant.faults.next("POST /nope", { kind: "error_500" })).rejects.toThrow("matches no route");
    } finally {
      await sandbox.stop();
    }
  });

  test("reset_after_commit on the real server (group commit): the answer is lost, the retry with its key finds one charge", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      const method = await json(`${sandbox.url}/webpayment/${merchant.webPaymentsToken}/tokenize`, {
        body: {
          method: "card",
          card_number: cards.visa.approve.number,
          card_exp: cards.visa.approve.exp,
          person_name: "Ada",
        },
      });
      await merchant.faults.next("POST /charge", { kind: "reset_after_commit" });
      const send = () =>
        fetch(`${sandbox.url}/charge`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${merchant.apiKey}`,
            "content-type": "application/json",
            "idempotency-key": "order-9",
          },
          body: JSON.stringify({ payment_method_id: method.body.id, total: 3 }),
        });
      const lost = await send().then(
        (response) => ({ answered: response.status }),
        (error: Error & { code?: string }) => ({ dropped: error.code ?? error.name }),
      );
      expect(lost).toEqual({ dropped: "ECONNRESET" });
      const retry = await send();
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
      const listed = await json(`${sandbox.url}/transaction`, { key: merchant.apiKey });
      expect(listed.body.total).toBe(1);
      expect(listed.body.data[0].id).toBe(((await retry.json()) as { id: string }).id);
    } finally {
      await sandbox.stop();
    }
  });
});

describe("merchant.fixtures, merchant.snapshot, merchant.restore", () => {
  test("a document sets up the merchant; a snapshot brings it back after the test changed it; a failing step rejects", async () => {
    const sandbox = await startSandbox({ url: null });
    try {
      const merchant = await sandbox.merchant();
      const doc = JSON.parse(
        await Bun.file(join(ROOT, "examples/fixtures/settled-charge-and-refund.json")).text(),
      ) as import("../../packages/testing/index").FixtureDocument;
      const { applied, results } = await merchant.fixtures<{ sale: { id: string }; ada_card: { id: string } }>(doc);
      expect(applied).toBe(true);
      const list = async () => (await json(`${sandbox.url}/transaction`, { key: merchant.apiKey })).body;
      const before = await list();
      expect(before.data.map((t: { id: string }) => t.id)).toContain(results.sale.id);

      const taken = await merchant.snapshot("ready");
      expect(taken).toMatchObject({ name: "ready" });
      await json(`${sandbox.url}/charge`, {
        key: merchant.apiKey,
        body: { payment_method_id: results.ada_card.id, total: 5 },
      });
      await merchant.clock.advance(3);
      expect(await list()).not.toEqual(before);
      expect(await merchant.restore("ready")).toEqual(taken);
      expect(await list()).toEqual(before);
      // The default merchant's handle has them too, and sees none of this merchant's.
      expect((await json(`${sandbox.url}/_sandbox/snapshots`, { key: sandbox.apiKey })).body.data).toEqual([]);

      expect(
        merchant.fixtures({ steps: [{ name: "x", method: "POST", path: "/charge", body: { total: 1 } }] }),
      ).rejects.toThrow('Step 1 ("x") (POST /charge) answered 422');
      expect(merchant.restore("nope")).rejects.toThrow("404");
      expect(merchant.snapshot("no spaces")).rejects.toThrow("merchant.snapshot() expects a name");
      expect(await list()).toEqual(before);
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
