/**
 * Every card authorization records the issuer's AVS (street, postal code) and CVV results; the
 * documented test values fail them, and the merchant's AVS settings decide whether a mismatch
 * declines. Through the real app, on both databases.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { AVS_TEST_VALUES } from "../../packages/rules/checks";
import { DECLINE_REASONS } from "../../packages/rules/declines";
import { AVS_RESPONSES } from "../../src/domain/gateway";
import { BANK, setup, tokenize, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

async function configure(settings: Record<string, unknown>) {
  const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: settings, auth: false });
  expect(res.status).toBe(200);
}

async function chargeWith(fields: Record<string, unknown>) {
  const pm = await tokenize(ctx, fields);
  return { pm, res: await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 9 } }) };
}

describe("check results", () => {
  test("an ordinary card records street, postal code and CVV as matching (Y, M)", async () => {
    const { res } = await chargeWith({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      avs_response: "Y",
      avs_message: AVS_RESPONSES.Y,
      cvv_response: "M",
      avs_street_result: "match",
      avs_zip_result: "match",
      cvv_result: "match",
    });
  });

  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      "a postal code that does not match: partial match A, approved",
      { address_zip: AVS_TEST_VALUES.zipNoMatch },
      { avs_response: "A", avs_zip_result: "no_match", avs_street_result: "match" },
    ],
    [
      "a street that does not match: partial match Z, approved",
      { address_1: AVS_TEST_VALUES.streetNoMatch },
      { avs_response: "Z", avs_zip_result: "match", avs_street_result: "no_match" },
    ],
    [
      "neither matches: N, approved",
      { address_1: AVS_TEST_VALUES.streetNoMatch, address_zip: AVS_TEST_VALUES.zipNoMatch },
      { avs_response: "N", avs_zip_result: "no_match", avs_street_result: "no_match" },
    ],
    [
      "the postal code cannot be verified: B",
      { address_zip: AVS_TEST_VALUES.zipUnavailable },
      { avs_response: "B", avs_zip_result: "unavailable" },
    ],
    [
      "the street cannot be verified: P",
      { address_1: AVS_TEST_VALUES.streetUnavailable },
      { avs_response: "P", avs_street_result: "unavailable" },
    ],
    [
      "nothing can be verified: U",
      { address_1: AVS_TEST_VALUES.streetUnavailable, address_zip: AVS_TEST_VALUES.zipUnavailable },
      { avs_response: "U", avs_message: AVS_RESPONSES.U },
    ],
    [
      "no street given: not_provided, P",
      { address_1: undefined, customer_id: "__set_below__" },
      { avs_street_result: "not_provided", avs_response: "P" },
    ],
    [
      "a CVV the issuer cannot verify: U, approved",
      { card_cvv: AVS_TEST_VALUES.cvvUnavailable },
      { cvv_response: "U", cvv_result: "unavailable" },
    ],
    [
      "no CVV given: P (not processed), approved",
      { card_cvv: undefined },
      { cvv_response: "P", cvv_result: "not_provided" },
    ],
  ];
  test.each(cases)("%s", async (_name, fields, expected) => {
    const overrides = { ...fields };
    if (overrides.customer_id === "__set_below__") {
      // A payment method of an existing customer needs no address of its own.
      overrides.customer_id = (await tokenize(ctx)).customer_id;
    }
    const { res } = await chargeWith(overrides);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(Object.fromEntries(Object.entries(expected).filter(([, v]) => v !== undefined)));
    if (typeof res.body.avs_response === "string") {
      expect(res.body.avs_message).toBe(AVS_RESPONSES[res.body.avs_response as keyof typeof AVS_RESPONSES]);
    }
    const stored = await ctx.call("GET", `/transaction/${res.body.id}`);
    expect(stored.body.avs_response).toBe(res.body.avs_response);
    expect(stored.body.cvv_result).toBe(res.body.cvv_result);
  });

  test("a CVV that does not match declines with incorrect_cvv, whatever the merchant's settings", async () => {
    const { res } = await chargeWith({ card_cvv: AVS_TEST_VALUES.cvvNoMatch });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ decline_code: "incorrect_cvv", message: DECLINE_REASONS.incorrect_cvv.message });
    expect(res.body.transaction).toMatchObject({ cvv_response: "N", cvv_result: "no_match", avs_response: "Y" });
    const amex = await chargeWith({ card_number: "378282246310005", card_cvv: "2000" });
    expect([amex.res.status, amex.res.body.decline_code]).toEqual([402, "incorrect_cvv"]);
  });

  test("the incorrect_cvv test card reports its CVV as not matching", async () => {
    const { res } = await chargeWith({ card_number: "4000000000000127" });
    expect(res.body.transaction).toMatchObject({ decline_code: "incorrect_cvv", cvv_result: "no_match" });
  });

  test("with avs_zip on, a postal code that does not match declines with incorrect_zip; unavailable approves", async () => {
    await configure({ avs_zip: true });
    const { pm, res } = await chargeWith({ address_zip: AVS_TEST_VALUES.zipNoMatch });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ decline_code: "incorrect_zip", message: DECLINE_REASONS.incorrect_zip.message });
    expect(res.body.transaction).toMatchObject({ avs_response: "A", avs_zip_result: "no_match", success: false });
    const unavailable = await chargeWith({ address_zip: AVS_TEST_VALUES.zipUnavailable });
    expect([unavailable.res.status, unavailable.res.body.avs_response]).toEqual([200, "B"]);
    // The settings are read at each authorization: turned off, the same payment method approves.
    await configure({ avs_zip: false });
    const again = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 9 } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ avs_response: "A", avs_zip_result: "no_match" });
  });

  test("with avs_street on, a street that does not match declines with incorrect_address", async () => {
    await configure({ avs_street: true });
    const { res } = await chargeWith({ address_1: AVS_TEST_VALUES.streetNoMatch });
    expect(res.status).toBe(402);
    expect(res.body.decline_code).toBe("incorrect_address");
    expect(res.body.transaction).toMatchObject({ avs_response: "Z", avs_street_result: "no_match" });
    // The postal code's mismatch stays recorded only: avs_zip is off.
    const zip = await chargeWith({ address_zip: AVS_TEST_VALUES.zipNoMatch });
    expect(zip.res.status).toBe(200);
  });

  test("an invoice payment records the checks and declines by the same rules", async () => {
    await configure({ avs_zip: true });
    const pm = await tokenize(ctx, { address_zip: AVS_TEST_VALUES.zipNoMatch });
    const invoice = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 15, meta: { subtotal: 15 } },
    });
    const res = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(res.status).toBe(402);
    expect(res.body.decline_code).toBe("incorrect_zip");
    expect(res.body.invoice.child_transactions[0]).toMatchObject({ avs_zip_result: "no_match", avs_response: "A" });
  });

  test("bank payments and a charge's children have no check results", async () => {
    const bank = await chargeWith({ ...BANK });
    expect(bank.res.body).toMatchObject({
      avs_response: null,
      cvv_response: null,
      avs_zip_result: null,
      cvv_result: null,
    });
    const pm = await tokenize(ctx);
    const pre = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 9, pre_auth: true } });
    const captured = await ctx.call("POST", `/transaction/${pre.body.id}/capture`, { body: {} });
    expect(captured.body.avs_response).toBe("Y");
    expect(captured.body.child_transactions[0]).toMatchObject({
      type: "capture",
      avs_response: null,
      cvv_result: null,
    });
  });

  test("only the results are stored: no CVV in the payment method's or the transaction's row", async () => {
    const { pm, res } = await chargeWith({ card_cvv: "987" });
    const pmRow = await ctx.deps.db.get<Record<string, unknown>>(
      sql`SELECT * FROM payment_methods WHERE id = ${pm.id}`,
    );
    const txRow = await ctx.deps.db.get<Record<string, unknown>>(
      sql`SELECT * FROM transactions WHERE id = ${res.body.id}`,
    );
    // No column holds the CVV (ids are random, so a substring search would find "987" by chance).
    for (const row of [pmRow!, txRow!]) {
      expect(Object.values(row).map(String)).not.toContain("987");
      expect(Object.keys(row).filter((column) => /cvv/.test(column))).not.toContain("card_cvv");
    }
    expect(pmRow!.cvv_result).toBe("match");
    expect(txRow).toMatchObject({ avs_street_result: "match", avs_zip_result: "match", cvv_result: "match" });
  });
});
