/**
 * The mobile SDK against a real sandbox on a loopback port: tokenize with the public token
 * exactly as an app does, then charge from "the backend" with the API key over HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  BankAccount,
  CreditCard,
  DEFAULT_BASE_URL,
  PaymentApi,
  PaymentConfiguration,
  DECLINE_CODES,
  DECLINE_REASONS,
  decliningTestBankAccount,
  decliningTestCreditCard,
  failingTestBankAccount,
  failingTestCreditCard,
  testBankAccount,
  testCreditCard,
  type PaymentMethod,
  type TokenizeResponse,
} from "paysandbox-mobile";
import { MESSAGES } from "../../packages/rules/messages";
import { TEST_CARDS } from "../../packages/rules/test-data";
import { serve, setup, type TestContext } from "../support/app";
import { proxy, type Proxy } from "./proxy";

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let api: PaymentApi;
/** A recording proxy in front of the sandbox, to see what an app really sends. */
let recorder: Proxy;
let recorded: PaymentApi;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  api = new PaymentApi({
    configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: sandbox.url }),
  });
  recorder = proxy(sandbox.url);
  recorded = new PaymentApi({
    configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: recorder.url }),
  });
});

afterAll(async () => {
  await recorder.stop();
  await sandbox.stop();
});

/** What the backend does with the id: POST /charge with the secret API key, over real HTTP. */
async function charge(paymentMethodId: string, total: number | string = 10.5) {
  const response = await fetch(`${sandbox.url}/charge`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      payment_method_id: paymentMethodId,
      total,
      pre_auth: false,
      meta: { tax: 0.5, subtotal: 10 },
    }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function merchantGet(path: string) {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${ctx.apiKey}` } });
  return { status: response.status, body: (await response.json()) as any };
}

/** Requests the app has sent through the recording proxy so far. */
const sent = () => recorder.seen.length;

function paymentMethodOf(response: TokenizeResponse): PaymentMethod {
  if (!response.ok) throw new Error(`expected a payment method, got ${JSON.stringify(response.error)}`);
  return response.paymentMethod;
}

describe("test helpers", () => {
  test("testCreditCard() tokenizes into a Visa payment method ending 1111, exp 1230, zip 32822", async () => {
    const pm = paymentMethodOf(await api.tokenize(CreditCard.testCreditCard()));
    expect(pm.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(pm.method).toBe("card");
    expect(pm.card_type).toBe("visa");
    expect(pm.card_last_four).toBe("1111");
    expect(pm.card_exp).toBe("1230");
    expect(pm.address_zip).toBe("32822");
    expect(pm.person_name).toBe("Joan Parsnip");
    expect(pm.customer.id).toBe(pm.customer_id);
    expect(pm.customer.firstname).toBe("Joan");
    expect(pm.customer.lastname).toBe("Parsnip");
  });

  test("the payment method has exactly the fields the SDK's PaymentMethod type declares", async () => {
    const pm = paymentMethodOf(await api.tokenize(testCreditCard()));
    const declared: (keyof PaymentMethod)[] = [
      "id",
      "customer_id",
      "merchant_id",
      "method",
      "person_name",
      "nickname",
      "has_cvv",
      "card_type",
      "bin_type",
      "card_last_four",
      "card_exp",
      "bank_name",
      "bank_type",
      "bank_holder_type",
      "bank_last_four",
      "address_zip",
      "address_1",
      "fingerprint",
      "created_at",
      "updated_at",
      "deleted_at",
      "customer",
    ];
    expect(Object.keys(pm).sort()).toEqual([...declared].sort());
  });

  test("failingTestCreditCard() fails with a card number validation error and sends nothing", async () => {
    const before = sent();
    const response = await recorded.tokenize(CreditCard.failingTestCreditCard());
    expect(response.ok).toBe(false);
    expect(response.error?.code).toBe("validation_error");
    expect(response.error?.fields).toEqual({ cardNumber: [MESSAGES.cardNumberInvalid] });
    expect(response.error?.message).toBe(MESSAGES.cardNumberInvalid);
    expect(response.error?.status).toBeUndefined();
    expect(sent()).toBe(before);
  });

  test("failingTestCreditCard() is refused by the sandbox too when client validation is off", async () => {
    const before = sent();
    const response = await recorded.tokenize(failingTestCreditCard(), undefined, { validate: false });
    expect(response.error?.code).toBe("validation_error");
    expect(response.error?.status).toBe(422);
    expect(response.error?.fields).toEqual({ cardNumber: [MESSAGES.cardNumberInvalid] });
    expect(sent()).toBe(before + 1);
    expect(recorder.upstream.at(-1)?.body.errors).toEqual({ card_number: [MESSAGES.cardNumberInvalid] });
  });

  test("testBankAccount() tokenizes into a savings bank payment method ending 3210", async () => {
    const pm = paymentMethodOf(await api.tokenize(BankAccount.testBankAccount()));
    expect(pm.method).toBe("bank");
    expect(pm.bank_type).toBe("savings");
    expect(pm.bank_holder_type).toBe("personal");
    expect(pm.bank_last_four).toBe("3210");
    expect(pm.card_type).toBeNull();
  });

  test("failingTestBankAccount() fails on the routing checksum, client-side and server-side alike", async () => {
    const before = sent();
    const client = await recorded.tokenize(BankAccount.failingTestBankAccount());
    expect(client.error?.code).toBe("validation_error");
    expect(client.error?.fields).toEqual({ bankRouting: [MESSAGES.routingChecksum] });
    expect(sent()).toBe(before);
    const server = await recorded.tokenize(failingTestBankAccount(), undefined, { validate: false });
    expect(sent()).toBe(before + 1);
    expect(server.error?.status).toBe(422);
    expect(server.error?.fields).toEqual({ bankRouting: [MESSAGES.routingChecksum] });
  });

  test("each helper returns a fresh object, so changing one never changes the next", () => {
    const card = testCreditCard();
    card.cardNumber = "5555555555554444";
    expect(testCreditCard().cardNumber).toBe("4111111111111111");
    expect(testBankAccount().bankRouting).toBe("021000021");
    expect(testBankAccount().bankAccount).toBe("9876543210");
  });
});

describe("charging the payment method from the backend", () => {
  test("the payment method id charges with POST /charge and the transaction is listed by GET /transaction", async () => {
    const pm = paymentMethodOf(await api.tokenize(testCreditCard()));
    const charged = await charge(pm.id, 10.5);
    expect(charged.status).toBe(200);
    expect(charged.body.success).toBe(true);
    expect(charged.body.type).toBe("charge");
    expect(charged.body.total).toBe(10.5);
    expect(charged.body.payment_method_id).toBe(pm.id);
    expect(charged.body.last_four).toBe("1111");
    expect(charged.body.meta).toEqual({ tax: 0.5, subtotal: 10 });

    const listed = await merchantGet(`/transaction?per_page=100`);
    expect(listed.status).toBe(200);
    const found = listed.body.data.find((row: { id: string }) => row.id === charged.body.id);
    expect(found).toBeDefined();
    expect(found.payment_method_id).toBe(pm.id);
    expect(found.success).toBe(true);
    const single = await merchantGet(`/transaction/${charged.body.id}`);
    expect(single.body.customer_id).toBe(pm.customer_id);
  });

  test("a bank payment method from testBankAccount() charges too", async () => {
    const pm = paymentMethodOf(await api.tokenize(testBankAccount()));
    const charged = await charge(pm.id, "25.00");
    expect(charged.status).toBe(200);
    expect(charged.body.method).toBe("bank");
    expect(charged.body.success).toBe(true);
  });

  const declining = TEST_CARDS.filter((card) => card.outcome !== "approve");
  test.each(declining.map((card) => [card.description, card.number] as const))(
    "%s (%s) tokenizes, but its charge is declined with a 402 and the failed transaction",
    async (_description, number) => {
      const card = new CreditCard({
        personName: "Decline Tester",
        cardNumber: number,
        cardExp: "1230",
        addressZip: "32822",
      });
      const pm = paymentMethodOf(await api.tokenize(card));
      expect(pm.card_last_four).toBe(number.slice(-4));
      const charged = await charge(pm.id);
      expect(charged.status).toBe(402);
      expect(charged.body.code).toBe("payment_declined");
      expect(charged.body.transaction.success).toBe(false);
      expect(charged.body.transaction.payment_method_id).toBe(pm.id);
      expect(charged.body.message).toBe(charged.body.transaction.message);
    },
  );

  const issuerReasons = DECLINE_CODES.filter(
    (code) => DECLINE_REASONS[code].method === "card" && code !== "incorrect_zip" && code !== "incorrect_address",
  );
  test.each(issuerReasons)(
    "decliningTestCreditCard(%s) tokenizes, and its charge is declined with that code",
    async (code) => {
      const pm = paymentMethodOf(await api.tokenize(decliningTestCreditCard(code)));
      const charged = await charge(pm.id);
      expect([charged.status, charged.body.decline_code, charged.body.retryable]).toEqual([
        402,
        code,
        DECLINE_REASONS[code].retryable,
      ]);
      expect(charged.body.message).toBe(DECLINE_REASONS[code].message);
    },
  );

  test("decliningTestCreditCard(incorrect_zip / incorrect_address) is declined when the merchant checks AVS", async () => {
    const settings = (body: Record<string, boolean>) =>
      ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body, auth: false });
    await settings({ avs_zip: true, avs_street: true });
    try {
      for (const code of ["incorrect_zip", "incorrect_address"] as const) {
        const pm = paymentMethodOf(await api.tokenize(decliningTestCreditCard(code)));
        const charged = await charge(pm.id);
        expect([charged.status, charged.body.decline_code]).toEqual([402, code]);
      }
    } finally {
      await settings({ avs_zip: false, avs_street: false });
    }
  });

  test.each(["R01", "R02", "R03", "R04"] as const)(
    "decliningTestBankAccount(%s) tokenizes, and the bank returns its charge with that code",
    async (code) => {
      const pm = paymentMethodOf(await api.tokenize(decliningTestBankAccount(code)));
      const charged = await charge(pm.id);
      expect([charged.status, charged.body.decline_code]).toEqual([402, code]);
      expect(charged.body.transaction.message).toBe(DECLINE_REASONS[code].message);
    },
  );

  test("the declining helpers refuse a code that is not theirs, naming it", () => {
    expect(() => decliningTestCreditCard("R01")).toThrow('expected a card decline code, got "R01"');
    expect(() => decliningTestBankAccount("lost_card" as "R01")).toThrow('got "lost_card"');
  });

  test("every approving test card of docs/contract.md §8 tokenizes and charges", async () => {
    for (const testCard of TEST_CARDS.filter((card) => card.outcome === "approve")) {
      const card = new CreditCard({
        personName: "Approve Tester",
        cardNumber: testCard.number,
        cardExp: "1230",
        cardCvv: testCard.brand === "amex" ? "1234" : "123",
        addressZip: "32822",
      });
      const pm = paymentMethodOf(await api.tokenize(card));
      expect(pm.card_type).toBe(testCard.brand);
      expect(pm.has_cvv).toBe(true);
      expect((await charge(pm.id)).status).toBe(200);
    }
  });
});

describe("listener and Promise", () => {
  test("the listener gets the very response the Promise resolves with, on success", async () => {
    const heard: TokenizeResponse[] = [];
    const resolved = await api.tokenize(testCreditCard(), (response) => heard.push(response));
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBe(resolved);
    expect(resolved.ok).toBe(true);
  });

  test("the listener gets the very response the Promise resolves with, on failure", async () => {
    const heard: TokenizeResponse[] = [];
    const resolved = await api.tokenize(failingTestCreditCard(), (response) => heard.push(response));
    expect(heard).toEqual([resolved]);
    expect(heard[0]).toBe(resolved);
    expect(resolved.ok).toBe(false);
  });

  test("the listener is called asynchronously, never before tokenize returns", async () => {
    let called = false;
    const pending = api.tokenize(failingTestCreditCard(), () => (called = true));
    expect(called).toBe(false);
    await pending;
    expect(called).toBe(true);
  });

  test("an exception thrown by the listener rejects the Promise instead of vanishing", async () => {
    const boom = new Error("listener bug");
    expect(
      api.tokenize(testCreditCard(), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  test("responses are frozen values", async () => {
    const response = await api.tokenize(failingTestCreditCard());
    expect(Object.isFrozen(response)).toBe(true);
    expect(Object.isFrozen(response.error)).toBe(true);
    expect(response.error?.name).toBe("PaymentError");
  });
});

describe("typed errors", () => {
  test("an unknown web payments token is an unauthenticated error with the sandbox's status and request id", async () => {
    const stranger = new PaymentApi({
      configuration: new PaymentConfiguration({ webPaymentsToken: "no_such_token", baseUrl: sandbox.url }),
    });
    const response = await stranger.tokenize(testCreditCard());
    expect(response.ok).toBe(false);
    expect(response.error?.code).toBe("unauthenticated");
    expect(response.error?.status).toBe(401);
    expect(response.error?.message).toBe("Unknown web payments token.");
    expect(response.error?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("the secret API key used as the public token is refused, so an app can never hold it usefully", async () => {
    const wrong = new PaymentApi({
      configuration: new PaymentConfiguration({ webPaymentsToken: ctx.apiKey, baseUrl: sandbox.url }),
    });
    expect((await wrong.tokenize(testCreditCard())).error?.code).toBe("unauthenticated");
  });

  test("a sandbox that is down (a closed port) is a network_error naming the address", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const offline = new PaymentApi({
      configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: url, maxRetries: 1 }),
    });
    const heard: TokenizeResponse[] = [];
    const response = await offline.tokenize(testCreditCard(), (r) => heard.push(r));
    expect(response.ok).toBe(false);
    expect(response.error?.code).toBe("network_error");
    expect(response.error?.message).toContain(url);
    expect(response.error?.status).toBeUndefined();
    expect(heard).toEqual([response]);
  });

  test("a customerId of no customer of the merchant comes back as a customerId validation error", async () => {
    const card = testCreditCard();
    card.customerId = "00000000-0000-4000-8000-000000000000";
    const response = await api.tokenize(card);
    expect(response.error?.code).toBe("validation_error");
    expect(response.error?.fields).toEqual({ customerId: [MESSAGES.customerNotFound] });
  });
});

describe("customers", () => {
  test("customer fields create a customer with them; customerId attaches to an existing customer", async () => {
    const card = new CreditCard({
      personName: "Grace Hopper",
      cardNumber: "5555 5555 5555 4444",
      cardExp: "0931",
      cardCvv: "321",
      addressZip: "10001",
      firstname: "Grace",
      lastname: "Hopper",
      email: "grace@example.com",
      phone: "2125550100",
      address1: "1 Navy Way",
      addressCity: "Arlington",
      addressState: "VA",
      addressCountry: "USA",
      company: "US Navy",
    });
    const first = paymentMethodOf(await api.tokenize(card));
    expect(first.card_type).toBe("mastercard");
    expect(first.customer).toMatchObject({
      firstname: "Grace",
      lastname: "Hopper",
      email: "grace@example.com",
      phone: "2125550100",
      address_1: "1 Navy Way",
      address_city: "Arlington",
      address_state: "VA",
      address_zip: "10001",
      address_country: "USA",
      company: "US Navy",
    });
    const bank = testBankAccount();
    bank.customerId = first.customer_id;
    const second = paymentMethodOf(await api.tokenize(bank));
    expect(second.customer_id).toBe(first.customer_id);
    const methods = await merchantGet(`/customer/${first.customer_id}/payment-method`);
    expect(methods.body.map((pm: { id: string }) => pm.id).sort()).toEqual([first.id, second.id].sort());
  });

  test("a merchant with zip AVS refuses a card without addressZip, reported on addressZip", async () => {
    const other = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "AVS shop" }, auth: false });
    const settings = await ctx.call("PUT", `/_sandbox/merchants/${other.body.id}/settings`, {
      body: { avs_zip: true },
      auth: other.body.api_key,
    });
    expect(settings.status).toBe(200);
    const avsApi = new PaymentApi({
      configuration: new PaymentConfiguration({
        webPaymentsToken: other.body.web_payments_token,
        baseUrl: sandbox.url,
      }),
    });
    const card = testCreditCard();
    card.addressZip = "";
    const response = await avsApi.tokenize(card);
    expect(response.error?.fields).toEqual({ addressZip: [MESSAGES.required("address_zip")] });
    expect(response.error?.status).toBe(422);
    expect((await avsApi.tokenize(testCreditCard())).ok).toBe(true);
  });
});

describe("configuration", () => {
  const saved = { ...PaymentConfiguration.shared };
  afterEach(() => Object.assign(PaymentConfiguration.shared, saved));

  test("PaymentConfiguration.shared defaults to no token and http://localhost:7290", () => {
    expect(saved.webPaymentsToken).toBe("");
    expect(saved.baseUrl).toBe(DEFAULT_BASE_URL);
    expect(DEFAULT_BASE_URL).toBe("http://localhost:7290");
  });

  test("PaymentConfiguration.shared sets the token of new clients; clients made earlier keep theirs", async () => {
    PaymentConfiguration.shared.webPaymentsToken = ctx.token;
    PaymentConfiguration.shared.baseUrl = sandbox.url;
    const first = new PaymentApi();
    PaymentConfiguration.shared.webPaymentsToken = "changed_later";
    const second = new PaymentApi();
    expect(first.configuration.webPaymentsToken).toBe(ctx.token);
    expect(second.configuration.webPaymentsToken).toBe("changed_later");
    expect((await first.tokenize(testCreditCard())).ok).toBe(true);
    expect((await second.tokenize(testCreditCard())).error?.code).toBe("unauthenticated");
  });

  test("new PaymentApi({ webPaymentsToken }) uses that token with the shared base URL", async () => {
    PaymentConfiguration.shared.baseUrl = `${sandbox.url}/`;
    const client = new PaymentApi({ webPaymentsToken: ctx.token });
    expect(client.configuration.baseUrl).toBe(sandbox.url);
    expect((await client.tokenize(testBankAccount())).ok).toBe(true);
  });

  test("a client without any token is misuse: it throws expected/got and names the fix", () => {
    PaymentConfiguration.shared.webPaymentsToken = "";
    expect(() => new PaymentApi()).toThrow(
      "PaymentApi: expected a web payments token, got an empty string — set PaymentConfiguration.shared.webPaymentsToken or pass { webPaymentsToken }",
    );
  });

  test("bad settings throw where they are made", () => {
    expect(() => new PaymentConfiguration({ baseUrl: "localhost:7290" })).toThrow(
      "PaymentConfiguration: expected baseUrl to be an http(s) URL",
    );
    expect(() => new PaymentConfiguration({ baseUrl: "ftp://example.com" })).toThrow("expected baseUrl");
    expect(() => new PaymentConfiguration({ timeoutMs: -1 })).toThrow(
      "expected timeoutMs to be a positive number, got -1",
    );
    expect(() => new PaymentConfiguration({ maxRetries: 1.5 })).toThrow(
      "expected maxRetries to be an integer 0..10, got 1.5",
    );
    expect(() => new PaymentApi({ configuration: { webPaymentsToken: "x" } as never })).toThrow(
      "PaymentApi: expected configuration to be a PaymentConfiguration, got a plain object",
    );
  });
});

describe("misuse throws", () => {
  test("tokenize() of something that is neither a CreditCard nor a BankAccount throws expected/got", () => {
    expect(() => api.tokenize("4111111111111111" as never)).toThrow(
      new TypeError("tokenize: expected a CreditCard or a BankAccount, got string"),
    );
    expect(() => api.tokenize({ cardNumber: "4111111111111111" } as never)).toThrow(
      "tokenize: expected a CreditCard or a BankAccount, got a plain object",
    );
    expect(() => api.tokenize(undefined as never)).toThrow("got undefined");
    expect(() => api.tokenize(testCreditCard(), "callback" as never)).toThrow(
      "tokenize: expected the listener to be a function, got string",
    );
  });

  test("a CreditCard with a misspelt or non-string field throws, without echoing the value", () => {
    expect(() => new CreditCard({ card_number: "4111111111111111" } as never)).toThrow(
      'got "card_number" (did you mean cardNumber?)',
    );
    let message = "";
    try {
      new CreditCard({ personName: "A", cardNumber: 4111111111111111 as never, cardExp: "1230", addressZip: "" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("CreditCard: expected cardNumber to be a string, got number");
    expect(() => new BankAccount(null as never)).toThrow("BankAccount: expected an object of fields, got null");
  });

  test("JSON.stringify and console output of a card or account never show the full number or the CVV", () => {
    const card = testCreditCard();
    card.cardCvv = "987";
    const shown =
      JSON.stringify(card) + Bun.inspect(card) + JSON.stringify(testBankAccount()) + Bun.inspect(testBankAccount());
    expect(shown).not.toContain("4111111111111111");
    expect(shown).not.toContain("987");
    expect(shown).not.toContain("9876543210");
    expect(shown).toContain("•••• 1111");
    expect(shown).toContain("•••• 3210");
  });
});
