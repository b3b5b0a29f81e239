/**
 * What the sandbox sends out on someone's behalf: webhooks go to loopback targets and
 * --webhook-allow ones only (a refused target gets no request, and the log says how to allow
 * it); response bodies are logged only for targets that may show them; --smtp relays only to
 * reserved test domains and --smtp-allow recipients. Real receivers: a Bun HTTP server and
 * smtp-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtp-receiver";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { relayBlockedMessage } from "../../src/services/mail/mailer";
import { targetRefusedMessage } from "../../src/services/webhooks/targets";
import { setup, tokenize, waitFor, type TestContext } from "../support/app";

/** This machine's first non-loopback IPv4 address, if any. */
function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) if (info.family === "IPv4" && !info.internal) return info.address;
  return undefined;
}

/** A receiver on every interface that answers a recognisable body. */
function receiver() {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "0.0.0.0",
    port: 0,
    fetch: async (request) => {
      hits.push(await request.text());
      return new Response("secret page of another local service", { status: 200 });
    },
  });
  return { port: server.port, hits, stop: () => server.stop(true) };
}

interface Attempt {
  status_code: number | null;
  response_snippet: string | null;
  error: string | null;
  latency_ms: number;
}

async function firstAttempt(ctx: TestContext): Promise<Attempt> {
  return waitFor<Attempt | undefined>(
    async () => {
      const list = (await ctx.call("GET", "/_sandbox/webhook-deliveries")).body.data as {
        attempt_log: {
          status_code: number | null;
          response_snippet: string | null;
          error: string | null;
          latency_ms: number;
        }[];
      }[];
      const first = list[0]?.attempt_log[0];
      // Finished: answered, or failed with an error.
      return first && (first.status_code !== null || first.error !== null) ? first : undefined;
    },
    5000,
    "an attempt",
  ) as Promise<Attempt>;
}

async function deliverOne(ctx: TestContext, target: string) {
  startWorkers(ctx.deps);
  try {
    expect(
      (await ctx.call("POST", "/webhook", { body: { target_url: target, event: "create_customer" } })).status,
    ).toBe(200);
    expect((await ctx.call("POST", "/customer", { body: { firstname: "Out", email: "o@example.com" } })).status).toBe(
      200,
    );
    return await firstAttempt(ctx);
  } finally {
    await stopWorkers(ctx.deps);
  }
}

describe("webhook targets", () => {
  const lan = lanAddress();
  let hook: ReturnType<typeof receiver>;
  beforeAll(() => {
    hook = receiver();
  });
  afterAll(() => hook.stop());

  test("a loopback target is sent to, and its answer logged, while the sandbox listens on loopback", async () => {
    const ctx = await setup();
    const attempt = await deliverOne(ctx, `http://127.0.0.1:${hook.port}/h`);
    expect(attempt).toMatchObject({ status_code: 200, response_snippet: "secret page of another local service" });
  });

  test("bound beyond loopback, a loopback target's answer is not logged (status and timing are)", async () => {
    const ctx = await setup({ config: { host: "0.0.0.0" } });
    const attempt = await deliverOne(ctx, `http://127.0.0.1:${hook.port}/h`);
    expect(attempt.status_code).toBe(200);
    expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
    expect(attempt.response_snippet).toBeNull();
    // Unless --webhook-allow names it.
    const allowed = await setup({ config: { host: "0.0.0.0", webhookAllow: [`127.0.0.1:${hook.port}`] } });
    expect((await deliverOne(allowed, `http://127.0.0.1:${hook.port}/h`)).response_snippet).toBe(
      "secret page of another local service",
    );
  });

  if (!lan) console.warn("NOTICE: no non-loopback IPv4 interface; the non-loopback webhook target test is skipped");

  test.skipIf(!lan)("a target beyond loopback gets no request unless --webhook-allow names it", async () => {
    const target = `http://${lan}:${hook.port}/h`;
    const before = hook.hits.length;
    const ctx = await setup();
    const refused = await deliverOne(ctx, target);
    expect(refused).toMatchObject({
      status_code: null,
      response_snippet: null,
      error: targetRefusedMessage(`${lan}:${hook.port}`),
    });
    expect(hook.hits.length).toBe(before);
    const allowed = await setup({ config: { webhookAllow: [lan!] } });
    expect(await deliverOne(allowed, target)).toMatchObject({
      status_code: 200,
      response_snippet: "secret page of another local service",
    });
    expect(hook.hits.length).toBe(before + 1);
  });
});

describe("the SMTP relay's recipients", () => {
  let smtp: SmtpReceiver;
  let port = 0;
  /** Every envelope recipient the relay has delivered to so far. */
  const rcpt = () => smtp.received.flatMap((r) => r.envelopeTo);
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    port = smtp.port;
  });
  afterAll(() => smtp.close());

  /** pay() with a receipt to `email`, through the public token only (what anyone can do). */
  async function receiptTo(ctx: TestContext, email: string) {
    const pm = await tokenize(ctx, { email });
    const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: {
        total: 1,
        firstname: "Ada",
        lastname: "Lovelace",
        phone: "5555550100",
        address_1: "1 Analytical Way",
        address_city: "London",
        address_state: "LN",
        email,
        payment_method_id: pm.id,
      },
      auth: false,
    });
    const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    if (paid.status !== 200) throw new Error(`pay: ${JSON.stringify(paid.body)}`);
    await ctx.deps.mailer.idle();
    const latest = await ctx.call("GET", "/_sandbox/emails/latest", { auth: false });
    if (latest.status !== 200) throw new Error(`no e-mail: ${JSON.stringify(latest.body)}`);
    return latest.body;
  }

  test("the public token cannot relay to any address: only test domains and --smtp-allow recipients", async () => {
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    const stranger = await receiptTo(ctx, "victim@mail.invalid-provider.com");
    expect(stranger.relay_status).toBe("blocked");
    expect(stranger.relay_error).toBe(relayBlockedMessage("victim@mail.invalid-provider.com"));
    expect(rcpt()).not.toContain("victim@mail.invalid-provider.com");
    // Still in the outbox, like every e-mail.
    expect(stranger.to).toBe("victim@mail.invalid-provider.com");
    expect((await receiptTo(ctx, "qa@shop.example.com")).relay_status).toBe("sent");
    expect(rcpt()).toContain("qa@shop.example.com");

    const allowed = await setup({
      config: { smtpUrl: `smtp://127.0.0.1:${port}`, smtpAllow: ["@mail.invalid-provider.com"] },
    });
    expect((await receiptTo(allowed, "victim@mail.invalid-provider.com")).relay_status).toBe("sent");
    expect(rcpt()).toContain("victim@mail.invalid-provider.com");
  });
});
