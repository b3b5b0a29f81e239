/**
 * docs/mobile.md is the native apps' contract, so its examples are run against the live
 * endpoint here: the documented requests work, the documented answers have the real shape,
 * the field table covers the endpoint's schema, and the SDK sends exactly that wire.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PaymentApi, PaymentConfiguration, WIRE_NAMES, testBankAccount, testCreditCard } from "paysandbox-mobile";
import { TokenizeBody } from "../../src/domain/schemas/webpayment";
import { serve, setup, type TestContext } from "../support/app";
import { proxy, type Proxy } from "./proxy";

const DOC = readFileSync(join(import.meta.dir, "..", "..", "docs", "mobile.md"), "utf8");

/** The JSON block right after `<!-- wire-example: name -->`. */
function example(name: string): any {
  const match = new RegExp(`<!-- wire-example: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match) throw new Error(`docs/mobile.md has no wire-example "${name}"`);
  return JSON.parse(match[1]!);
}

/** The key structure of a JSON value (nested objects included), to compare shapes, not values. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "value";
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
  );
}

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let recorder: Proxy;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  recorder = proxy(sandbox.url);
});

afterAll(async () => {
  await recorder.stop();
  await sandbox.stop();
});

async function post(body: unknown, headers: Record<string, string> = {}, token = ctx.token) {
  const response = await fetch(`${sandbox.url}/webpayment/${token}/tokenize`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe("the documented examples against the live endpoint", () => {
  test("the card request example tokenizes, and the answer has the documented payment method's shape", async () => {
    const answer = await post(example("card-request"));
    expect(answer.status).toBe(200);
    expect(shape(answer.body)).toEqual(shape(example("payment-method")));
    expect(answer.body.card_type).toBe("visa");
    expect(answer.body.card_last_four).toBe("1111");
    expect(answer.body.has_cvv).toBe(true);
  });

  test("the bank request example tokenizes into the same shape", async () => {
    const answer = await post(example("bank-request"));
    expect(answer.status).toBe(200);
    expect(shape(answer.body)).toEqual(shape(example("payment-method")));
    expect(answer.body.bank_last_four).toBe("3210");
  });

  test("the invalid request example answers exactly the documented 422 body", async () => {
    const answer = await post(example("invalid-request"));
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(example("invalid-response"));
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("an unknown token answers the documented 401", async () => {
    const answer = await post(example("card-request"), {}, "no_such_token");
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: "Unknown web payments token.", code: "unauthenticated" });
  });

  test("a body that is not JSON answers 400 malformed_json", async () => {
    const answer = await post("{not json");
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("malformed_json");
  });

  test("idempotency works as documented: replay with the header, 409 for another body, nothing stored on failure", async () => {
    const key = crypto.randomUUID();
    const first = await post(example("card-request"), { "idempotency-key": key });
    const replay = await post(example("card-request"), { "idempotency-key": key });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const conflict = await post(example("bank-request"), { "idempotency-key": key });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe("idempotency_conflict");

    const failedKey = crypto.randomUUID();
    expect((await post(example("invalid-request"), { "idempotency-key": failedKey })).status).toBe(422);
    expect((await post(example("card-request"), { "idempotency-key": failedKey })).status).toBe(200);
  });

  test("the CORS preflight answers 204 with exactly the documented headers", async () => {
    const block = /### CORS[\s\S]*?```\n([\s\S]*?)\n```/.exec(DOC)![1]!;
    const documented = Object.fromEntries(
      block
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 2)]),
    );
    const response = await fetch(`${sandbox.url}/webpayment/${ctx.token}/tokenize`, {
      method: "OPTIONS",
      headers: {
        origin: "http://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, idempotency-key, accept",
      },
    });
    expect(response.status).toBe(204);
    for (const [name, value] of Object.entries(documented)) expect(response.headers.get(name)).toBe(value);
  });
});

describe("the field table and the SDK match the endpoint", () => {
  const endpointFields = Object.keys(TokenizeBody.properties).sort();

  test("the request field table documents every field of the endpoint's schema, and no other", () => {
    const table = /### Request fields\n([\s\S]*?)\n\n/.exec(DOC)![1]!;
    const documented = [...table.matchAll(/^\| `([a-z_0-9]+)`/gm)].map((m) => m[1]!).sort();
    expect(documented).toEqual(endpointFields);
  });

  test("every SDK property maps to a field the endpoint knows (unknown fields would be silently dropped)", () => {
    const mapped = ["method", ...Object.values(WIRE_NAMES)].sort();
    expect(mapped).toEqual(endpointFields);
  });

  test("the SDK sends the documented headers and the snake_case body, only with CORS-safe headers", async () => {
    const api = new PaymentApi({
      configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: recorder.url }),
    });
    const card = testCreditCard();
    card.cardCvv = "123";
    card.address1 = "1 Main St";
    expect((await api.tokenize(card)).ok).toBe(true);
    expect((await api.tokenize(testBankAccount())).ok).toBe(true);
    const [cardRequest, bankRequest] = recorder.seen.slice(-2);
    expect(cardRequest!.method).toBe("POST");
    expect(cardRequest!.path).toBe(`/webpayment/${ctx.token}/tokenize`);
    expect(cardRequest!.headers["content-type"]).toBe("application/json");
    expect(cardRequest!.headers.accept).toBe("application/json");
    expect(cardRequest!.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(cardRequest!.body)).toEqual({
      method: "card",
      person_name: "Joan Parsnip",
      card_number: "4111111111111111",
      card_exp: "1230",
      card_cvv: "123",
      address_zip: "32822",
      address_1: "1 Main St",
    });
    expect(JSON.parse(bankRequest!.body)).toEqual({
      method: "bank",
      person_name: "Joan Parsnip",
      bank_type: "savings",
      bank_holder_type: "personal",
      bank_account: "9876543210",
      bank_routing: "021000021",
      bank_name: "Test Bank",
      address_zip: "32822",
    });
    // A browser only sends what the preflight allows; fetch adds the transport headers itself.
    const allowed = ["content-type", "idempotency-key", "accept"];
    const transport = ["host", "connection", "content-length", "user-agent", "accept-encoding"];
    for (const name of Object.keys(cardRequest!.headers)) expect([...allowed, ...transport]).toContain(name);
  });

  test("a token with characters that need escaping is path-encoded, and simply unknown", async () => {
    const api = new PaymentApi({
      configuration: new PaymentConfiguration({ webPaymentsToken: "a/b?c", baseUrl: recorder.url }),
    });
    const response = await api.tokenize(testCreditCard());
    expect(recorder.seen.at(-1)!.path).toBe("/webpayment/a%2Fb%3Fc/tokenize");
    expect(response.error?.code).toBe("unauthenticated");
  });
});
