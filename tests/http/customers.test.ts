import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { otherMerchant, setup, tokenize } from "../support/app";
import { holdOpen, onPostgres } from "../support/database";
import type { Executor } from "../../src/storage/database";
import { holdUntilCommit } from "../../src/storage/repositories/locks";
import { matchKey } from "../../src/services/customers";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const FULL = {
  firstname: "Grace",
  lastname: "Hopper",
  company: "Navy",
  email: "grace@example.com",
  phone: "5555550123",
  address_1: "1 Compiler Rd",
  address_2: "Suite 2",
  address_city: "Arlington",
  address_state: "VA",
  address_zip: "22201",
  address_country: "USA",
  reference: "CUST-1",
  notes: "Prefers e-mail",
  options: { tier: "gold", tags: ["a", "b"] },
  cc_emails: ["ops@example.com"],
  cc_sms: ["5555550999"],
  allow_invoice_credit_card_payments: false,
};

describe("POST /customer and GET /customer/{id}", () => {
  test("creates a customer with every field of the record, typed", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/customer", { body: FULL });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c).toMatchObject({ ...FULL, gravatar: false, deleted_at: null });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.created_at).toMatch(TIMESTAMP);
    expect(c.updated_at).toMatch(TIMESTAMP);
    expect(Object.keys(c).sort()).toEqual(
      [
        "id",
        "firstname",
        "lastname",
        "company",
        "email",
        "phone",
        "address_1",
        "address_2",
        "address_city",
        "address_state",
        "address_zip",
        "address_country",
        "reference",
        "notes",
        "options",
        "cc_emails",
        "cc_sms",
        "allow_invoice_credit_card_payments",
        "gravatar",
        "created_at",
        "updated_at",
        "deleted_at",
      ].sort(),
    );
    expect((await ctx.call("GET", `/customer/${c.id}`)).body).toEqual(c);
  });

  test("fills the defaults: empty strings, null notes/options/cc lists, card payments allowed", async () => {
    const ctx = await setup();
    const c = (await ctx.call("POST", "/customer", { body: { firstname: "Solo" } })).body;
    expect(c).toMatchObject({
      lastname: "",
      company: "",
      email: "",
      phone: "",
      address_country: "",
      reference: "",
      notes: null,
      options: null,
      cc_emails: null,
      cc_sms: null,
      allow_invoice_credit_card_payments: true,
      gravatar: false,
    });
  });

  test("reports broken rules per field", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/customer", {
      body: { firstname: "x".repeat(51), email: "nope", phone: "123", address_state: "VAX", address_country: "US" },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      firstname: [MESSAGES.maxLength("firstname", 50)],
      email: [MESSAGES.email],
      phone: [MESSAGES.minLength("phone", 10)],
      address_state: [MESSAGES.maxLength("address_state", 2)],
      address_country: [MESSAGES.exactLength("address_country", 3)],
    });
    const empty = await ctx.call("POST", "/customer", { body: { phone: "5555550123" } });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(["firstname"]);
    expect((await ctx.call("GET", "/customer")).body.total).toBe(0);
  });

  test("is invisible to other merchants; the public token may not read customers", async () => {
    const ctx = await setup();
    const c = (await ctx.call("POST", "/customer", { body: FULL })).body;
    const other = await otherMerchant(ctx);
    expect((await ctx.call("GET", `/customer/${c.id}`, { auth: other.api_key })).status).toBe(404);
    expect((await ctx.call("PUT", `/customer/${c.id}`, { body: { firstname: "X" }, auth: other.api_key })).status).toBe(
      404,
    );
    expect((await ctx.call("DELETE", `/customer/${c.id}`, { auth: other.api_key })).status).toBe(404);
    expect((await ctx.call("GET", "/customer", { auth: ctx.token })).status).toBe(403);
    expect((await ctx.call("GET", "/customer", { auth: false })).status).toBe(401);
  });
});

describe("GET /customer", () => {
  test("lists newest first in the page envelope, searches by keywords, leaves deleted ones out", async () => {
    const ctx = await setup();
    const a = (await ctx.call("POST", "/customer", { body: { firstname: "Alan", lastname: "Turing" } })).body;
    const b = (await ctx.call("POST", "/customer", { body: { firstname: "Barbara", company: "Liskov Inc" } })).body;
    const c = (await ctx.call("POST", "/customer", { body: { firstname: "Claude", email: "shannon@example.com" } }))
      .body;
    const page = await ctx.call("GET", "/customer?per_page=2");
    expect(page.body).toMatchObject({ total: 3, per_page: 2, last_page: 2, from: 1, to: 2 });
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([c.id, b.id]);
    expect((await ctx.call("GET", "/customer?keywords=liskov")).body.data.map((x: { id: string }) => x.id)).toEqual([
      b.id,
    ]);
    expect((await ctx.call("GET", "/customer?keywords=shannon@")).body.data[0].id).toBe(c.id);
    // LIKE wildcards are literal.
    expect((await ctx.call("GET", "/customer?keywords=%25")).body.total).toBe(0);
    await ctx.call("DELETE", `/customer/${a.id}`);
    expect((await ctx.call("GET", "/customer")).body.total).toBe(2);
  });
});

describe("PUT and DELETE /customer/{id}", () => {
  test("updates only the given fields and moves updated_at; validates like create", async () => {
    const ctx = await setup();
    const c = (await ctx.call("POST", "/customer", { body: FULL })).body;
    const seen: string[] = [];
    ctx.deps.events.on((_ex, e) => void seen.push(e.name));
    const res = await ctx.call("PUT", `/customer/${c.id}`, {
      body: { phone: "5555550000", notes: null, options: { tier: "silver" } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...c,
      phone: "5555550000",
      notes: null,
      options: { tier: "silver" },
      updated_at: res.body.updated_at,
    });
    expect(seen).toEqual(["update_customer"]);
    const bad = await ctx.call("PUT", `/customer/${c.id}`, { body: { email: "bad" } });
    expect(bad.status).toBe(422);
    expect((await ctx.call("GET", `/customer/${c.id}`)).body.email).toBe(FULL.email);
  });

  test("deletes softly: still readable with deleted_at, no longer updatable or matched at tokenize", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const deleted = await ctx.call("DELETE", `/customer/${pm.customer_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_at).toMatch(TIMESTAMP);
    expect((await ctx.call("GET", `/customer/${pm.customer_id}`)).body.deleted_at).toBe(deleted.body.deleted_at);
    expect((await ctx.call("PUT", `/customer/${pm.customer_id}`, { body: { firstname: "Z" } })).status).toBe(404);
    const again = await tokenize(ctx);
    expect(again.customer_id).not.toBe(pm.customer_id);
  });
});

describe("customers at tokenize", () => {
  test("matches the same e-mail, first and last name ignoring case; anything else is a new customer", async () => {
    const ctx = await setup();
    const first = await tokenize(ctx);
    const same = await tokenize(ctx, { email: "ADA@Example.com", firstname: "ada", lastname: "LOVELACE" });
    expect(same.customer_id).toBe(first.customer_id);
    const otherName = await tokenize(ctx, { lastname: "Byron" });
    expect(otherName.customer_id).not.toBe(first.customer_id);
    const otherEmail = await tokenize(ctx, { email: "ada2@example.com" });
    expect(otherEmail.customer_id).not.toBe(first.customer_id);
    const noEmail = await tokenize(ctx, { email: undefined });
    const noEmailAgain = await tokenize(ctx, { email: undefined });
    expect(noEmail.customer_id).not.toBe(noEmailAgain.customer_id);
    const methods = await ctx.call("GET", `/customer/${first.customer_id}/payment-method`);
    expect(methods.body.map((m: { id: string }) => m.id)).toEqual([first.id, same.id]);
  });

  test("two tokenizes of one new person at once make one customer, on either database", async () => {
    // On PostgreSQL the second unit of work does not see the first's uncommitted customer: without
    // a lock on the match, both inserted one (parallel suites tokenizing the same test person).
    const ctx = await setup();
    const { customers } = ctx.deps.services;
    const person = { firstname: "Ada", lastname: "Lovelace", email: "ada.parallel@example.com" };
    const first = await holdOpen(
      (work) => ctx.deps.db.transaction(work),
      (tx: Executor) => customers.matchOrInsert(tx, ctx.merchantId, person),
    );
    const second = ctx.deps.db.transaction((tx) => customers.matchOrInsert(tx, ctx.merchantId, person));
    await Bun.sleep(200); // the second is under way (on PostgreSQL: waiting for the first) before the first commits
    await first.commit();
    expect((await second).id).toBe(first.result.id);
    const listed = await ctx.call("GET", `/customer?keywords=${encodeURIComponent(person.email)}`);
    expect(listed.body.total).toBe(1);
  });

  // SQLite runs one unit of work at a time: there, every unit waits for the held one.
  test.skipIf(!onPostgres)(
    "a tokenize of a known person does not wait for the person's turn (PostgreSQL)",
    async () => {
      // The turn is for a new person only: a unit holding it (say, a tokenize still inserting a
      // namesake) must not hold up the tokenizes of a person already known.
      const ctx = await setup();
      const { customers } = ctx.deps.services;
      const person = { firstname: "Ada", lastname: "Lovelace", email: "ada.known@example.com" };
      const known = await ctx.deps.db.transaction((tx) => customers.matchOrInsert(tx, ctx.merchantId, person));
      const turn = await holdOpen(
        (work) => ctx.deps.db.transaction(work),
        (tx: Executor) =>
          holdUntilCommit(
            tx,
            "customer-match",
            ctx.merchantId,
            matchKey(person.email, person.firstname, person.lastname),
          ),
      );
      const again = ctx.deps.db.transaction((tx) => customers.matchOrInsert(tx, ctx.merchantId, person));
      // Before this change it waited here until the turn's unit ended (never, without the commit below).
      const first = await Promise.race([again.then(() => "matched"), Bun.sleep(3000).then(() => "still waiting")]);
      await turn.commit();
      expect(first).toBe("matched");
      expect((await again).id).toBe(known.id);
    },
  );

  test("takes the customer fields of tokenize into a new customer", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx, { company: "Analytical", address_country: "GBR" });
    const c = (await ctx.call("GET", `/customer/${pm.customer_id}`)).body;
    expect(c).toMatchObject({
      firstname: "Ada",
      lastname: "Lovelace",
      email: "ada@example.com",
      phone: "5555550100",
      company: "Analytical",
      address_1: "1 Analytical Way",
      address_city: "London",
      address_state: "LN",
      address_zip: "32822",
      address_country: "GBR",
    });
  });

  test("a given customer_id gets the payment method and its fields are ignored; another merchant's is refused", async () => {
    const ctx = await setup();
    const c = (await ctx.call("POST", "/customer", { body: FULL })).body;
    const pm = await tokenize(ctx, { customer_id: c.id, firstname: "Someone", email: "else@example.com" });
    expect(pm.customer_id).toBe(c.id);
    expect((await ctx.call("GET", `/customer/${c.id}`)).body.firstname).toBe("Grace");
    const other = await otherMerchant(ctx);
    const foreign = await ctx.call("POST", `/webpayment/${other.web_payments_token}/tokenize`, {
      body: {
        method: "card",
        card_number: "4111111111111111",
        card_exp: "1230",
        person_name: "A B",
        customer_id: c.id,
      },
      auth: false,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.customer_id).toEqual([MESSAGES.customerNotFound]);
  });
});
