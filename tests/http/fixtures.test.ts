/**
 * Declarative fixtures (POST /_sandbox/fixtures): steps run through the app as the merchant, later
 * steps referring to earlier answers; a failing step is a 422 naming the step and the field, and
 * nothing of the document is kept; `once` applies a document a single time. Every document of
 * examples/fixtures is applied here. Both databases.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { FIXTURE_MESSAGES } from "../../src/services/fixtures";
import { EXAMPLE_STATES } from "../support/fixture-examples";

const EXAMPLES = join(import.meta.dir, "../../examples/fixtures");
const example = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), "utf8"));

const CARD = {
  method: "card",
  card_number: "4111111111111111",
  card_cvv: "123",
  card_exp: "1230",
  person_name: "Ada Lovelace",
  email: "ada@example.com",
  address_zip: "32822",
};
const tokenizeStep = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  method: "POST",
  path: "/webpayment/${merchant:web_payments_token}/tokenize",
  body: { ...CARD, ...overrides },
});

/** Every list of the merchant, to see that nothing of a failed document was kept. */
async function lists(ctx: TestContext, auth = ctx.apiKey) {
  const out: Record<string, unknown> = {};
  for (const path of ["/customer", "/transaction", "/invoice", "/_sandbox/emails", "/_sandbox/webhook-deliveries"])
    out[path] = (await ctx.call("GET", `${path}?per_page=100`, { auth })).body;
  out.clock = (await ctx.call("GET", "/_sandbox/clock", { auth })).body.offset_seconds;
  return out;
}

describe("POST /_sandbox/fixtures", () => {
  test("runs the steps in order, references earlier answers (dotted paths, inside strings), answers every named result", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/_sandbox/fixtures", {
      body: {
        steps: [
          tokenizeStep("ada_card"),
          { name: "sale", method: "POST", path: "/charge", body: { payment_method_id: "${ada_card:id}", total: 40 } },
          { name: "clock", clock: { advance: { seconds: 86_400 } } },
          { name: "refund", method: "post", path: "/transaction/${sale:id}/refund", body: { total: 15 } },
          {
            name: "note",
            method: "PUT",
            path: "/customer/${ada_card:customer_id}",
            body: { notes: "refund ${refund:child_transactions.0.id} of ${sale:total}", reference: "${merchant:id}" },
          },
          { method: "GET", path: "/self" },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.applied).toBe(true);
    const { ada_card, sale, clock, refund, note } = res.body.results;
    expect(Object.keys(res.body.results)).toEqual(["ada_card", "sale", "clock", "refund", "note"]);
    expect(sale).toMatchObject({ payment_method_id: ada_card.id, total: 40 });
    expect(clock.offset_seconds).toBeGreaterThanOrEqual(86_400);
    expect(refund.child_transactions[0]).toMatchObject({ type: "refund", total: 15, parent_id: sale.id });
    expect(note.notes).toBe(`refund ${refund.child_transactions[0].id} of 40`);
    expect(note.reference).toBe(ctx.merchantId);
    // The records are the merchant's own, as if it had made the calls.
    expect((await ctx.call("GET", `/transaction/${sale.id}`)).body.total_refunded).toBe(15);
  });

  test("a failing step is a 422 naming the step and its field; nothing of the document is kept", async () => {
    const ctx = await setup();
    await tokenize(ctx); // something the merchant had before
    const before = await lists(ctx);
    const res = await ctx.call("POST", "/_sandbox/fixtures", {
      body: {
        steps: [
          tokenizeStep("ada_card"),
          { name: "sale", method: "POST", path: "/charge", body: { payment_method_id: "${ada_card:id}", total: 40 } },
          { clock: { advance: { seconds: 3600 } } },
          {
            name: "too_much",
            method: "POST",
            path: "/charge",
            body: { payment_method_id: "${ada_card:id}", total: -5 },
          },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.message).toStartWith('Step 4 ("too_much") (POST /charge) answered 422: ');
    expect(Object.keys(res.body.errors)).toEqual(["steps[3].body.total"]);
    expect(res.body.step).toMatchObject({ index: 3, name: "too_much", status: 422 });
    expect(await lists(ctx)).toEqual(before);
    expect((await ctx.call("GET", "/_sandbox/snapshots")).body.data).toEqual([]);
  });

  test("a declined charge fails its step unless it expects 402; a bad reference names the step and field", async () => {
    const ctx = await setup();
    const declining = tokenizeStep("card", { card_number: "4012888888881881" });
    const charge = {
      name: "declined",
      method: "POST",
      path: "/charge",
      body: { payment_method_id: "${card:id}", total: 9 },
    };
    const failed = await ctx.call("POST", "/_sandbox/fixtures", { body: { steps: [declining, charge] } });
    expect(failed.status).toBe(422);
    expect(failed.body.errors).toEqual({ "steps[1]": [expect.any(String)] });
    expect(failed.body.step.status).toBe(402);
    expect((await ctx.call("GET", "/customer")).body.total).toBe(0);

    const expected = await ctx.call("POST", "/_sandbox/fixtures", {
      body: { steps: [declining, { ...charge, expect_status: 402 }] },
    });
    expect(expected.status).toBe(200);
    expect(expected.body.results.declined).toMatchObject({ code: "payment_declined" });

    for (const [reference, message] of [
      ["${nobody:id}", FIXTURE_MESSAGES.unknownName("${nobody:id}", "nobody")],
      ["${card:nope.deeper}", FIXTURE_MESSAGES.missingField("${card:nope.deeper}", "card", "nope.deeper")],
      ["id ${card:customer}", FIXTURE_MESSAGES.notScalar("${card:customer}")],
      ["${later:id}", FIXTURE_MESSAGES.unknownName("${later:id}", "later")],
    ]) {
      const res = await ctx.call("POST", "/_sandbox/fixtures", {
        body: {
          steps: [
            tokenizeStep("card", { card_number: "4111111111111111" }),
            { method: "POST", path: "/charge", body: { payment_method_id: reference, total: 1 } },
            tokenizeStep("later"),
          ],
        },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ "steps[1].body.payment_method_id": [message] });
      expect(res.body.step).toEqual({ index: 1, name: null });
    }
    expect((await ctx.call("GET", "/customer")).body.total).toBe(1); // only the 402 document's
  });

  test("a malformed document is a 422 naming each bad step's field, before anything runs", async () => {
    const ctx = await setup();
    const cases: [unknown, string][] = [
      [{ steps: [] }, "steps"],
      [{ steps: "x" }, "steps"],
      [{ steps: [5] }, "steps[0]"],
      [{ steps: [{ method: "POST" }] }, "steps[0].path"],
      [{ steps: [{ method: "FETCH", path: "/self" }] }, "steps[0].method"],
      [{ steps: [{ method: "GET", path: "self" }] }, "steps[0].path"],
      [{ steps: [{ method: "GET", path: "/self", clock: { advance: {} } }] }, "steps[0]"],
      [{ steps: [{ clock: { back: 5 } }] }, "steps[0].clock"],
      [{ steps: [{ name: "merchant", method: "GET", path: "/self" }] }, "steps[0].name"],
      [{ steps: [{ name: "9x", method: "GET", path: "/self" }] }, "steps[0].name"],
      [{ steps: [{ method: "GET", path: "/self", extra: 1 }] }, "steps[0].extra"],
      [{ steps: [{ method: "GET", path: "/self", expect_status: 1000 }] }, "steps[0].expect_status"],
      [{ steps: [{ method: "POST", path: "/_sandbox/fixtures", body: {} }] }, "steps[0].path"],
      [
        {
          steps: [
            { name: "a", method: "GET", path: "/self" },
            { name: "a", method: "GET", path: "/self" },
          ],
        },
        "steps[1].name",
      ],
    ];
    for (const [body, field] of cases) {
      const res = await ctx.call("POST", "/_sandbox/fixtures", { body });
      expect({ body, status: res.status, fields: Object.keys(res.body.errors ?? {}) }).toEqual({
        body,
        status: 422,
        fields: [field],
      });
    }
    expect((await ctx.call("POST", "/_sandbox/fixtures", { body: {} })).status).toBe(422);
    expect((await ctx.call("POST", "/_sandbox/fixtures", { raw: "{" })).status).toBe(400);
  });

  test('"once" applies a document a single time per merchant (until its reset), answering the first results', async () => {
    const ctx = await setup();
    const doc = { once: true, steps: [tokenizeStep("card"), { name: "self", method: "GET", path: "/self" }] };
    const first = await ctx.call("POST", "/_sandbox/fixtures", { body: doc });
    expect(first.body.applied).toBe(true);
    // The same steps with keys in another order are the same document.
    const reordered = { steps: doc.steps.map((s) => Object.fromEntries(Object.entries(s).reverse())), once: true };
    const again = await ctx.call("POST", "/_sandbox/fixtures", { body: reordered });
    expect(again.body).toEqual({ applied: false, results: first.body.results });
    expect((await ctx.call("GET", "/customer")).body.total).toBe(1);
    // Another merchant gets it applied to itself.
    const other = await otherMerchant(ctx);
    const theirs = await ctx.call("POST", "/_sandbox/fixtures", { body: doc, auth: other.api_key });
    expect(theirs.body.applied).toBe(true);
    expect(theirs.body.results.card.id).not.toBe(first.body.results.card.id);
    // After a reset the records are gone, and so is the record of the document.
    await ctx.call("POST", "/_sandbox/reset");
    expect((await ctx.call("POST", "/_sandbox/fixtures", { body: doc })).body.applied).toBe(true);
    // Without once, a document applies each time.
    await ctx.call("POST", "/_sandbox/fixtures", { body: { steps: doc.steps } });
    expect((await ctx.call("GET", "/customer")).body.total).toBe(1); // the same person: the customer is matched
    expect((await ctx.call("GET", `/customer/${theirs.body.results.card.customer_id}`)).status).toBe(404);
  });
});

describe("examples/fixtures", () => {
  const files = readdirSync(EXAMPLES).filter((file) => file.endsWith(".json"));

  test("there are documents for the common states", () => {
    expect(files.sort()).toEqual([
      "ach-declined-r01.json",
      "ach-returned-r01.json",
      "declined-card.json",
      "disputed-charge.json",
      "invoice-paid-then-refunded.json",
      "settled-charge-and-refund.json",
      "subscription-three-months-in.json",
    ]);
  });

  for (const file of files)
    test(`${file} applies to a fresh merchant`, async () => {
      const ctx = await setup();
      const res = await ctx.call("POST", "/_sandbox/fixtures", { body: example(file) });
      expect({ file, status: res.status, error: res.status === 200 ? undefined : res.body }).toEqual({
        file,
        status: 200,
        error: undefined,
      });
      const results = res.body.results;
      if (file === "settled-charge-and-refund.json") {
        expect(results.sale).toMatchObject({ total: 40 });
        expect(results.refund).toMatchObject({ total_refunded: 15 });
        expect(results.ada.id).toBe(results.ada_card.customer_id);
      }
      if (file === "invoice-paid-then-refunded.json") {
        expect(results.paid.status).toBe("PAID");
        expect(results.refund.total_refunded).toBe(120);
      }
      if (file === "declined-card.json") expect(results.declined.code).toBe("payment_declined");
      if (file === "ach-declined-r01.json")
        expect(results.declined.decline_code ?? results.declined.transaction?.decline_code).toBe("R01");
      if (file === "subscription-three-months-in.json") expect(results.schedule.count).toBe(3);
      if (file === "ach-returned-r01.json") expect(results.returned.is_voided).toBe(true);
      if (file === "disputed-charge.json") expect(results.disputes.data[0].status).toBe("PENDING");
      // What a user then finds through the API (the same checks follow --fixtures: tests/cli/fixtures.test.ts).
      await EXAMPLE_STATES[file]?.((path) => ctx.call("GET", path));
    });
});
