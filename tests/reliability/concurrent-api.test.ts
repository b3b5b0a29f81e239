/**
 * Many API calls on one merchant at once — charges, pre-auths, captures, voids, refunds, tokenizes,
 * invoices and their pays and deletes, customer and payment-method changes, webhooks, clock
 * advances, lists, and now and then a sandbox reset — answer 2xx or a 4xx that says why, never 5xx.
 * It found, on PostgreSQL, deadlocks between a reset and the units it deleted under, and between two
 * refunds of one invoice's charges; and on both databases a list whose records a reset deleted
 * between its statements. The sequence of calls is fixed (a seeded generator); their interleaving is
 * the machine's.
 */
import { describe, expect, test } from "bun:test";
import { setup, tokenize, type TestContext } from "../support/app";

const ROUNDS = 30;
const AT_ONCE = 16;

/** A small deterministic generator (the calls are the same every run). */
function generator(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

function operations(ctx: TestContext, random: ReturnType<typeof generator>) {
  const ids = {
    methods: [] as string[],
    customers: [] as string[],
    transactions: [] as string[],
    invoices: [] as string[],
    webhooks: [] as string[],
  };
  const any = (list: string[]) => random.pick(list.length > 0 ? list : ["00000000-0000-4000-8000-000000000000"]);
  const keep = (list: string[]) => (answer: { status: number; body: any }) => {
    if (answer.status === 200) list.push(answer.body.id);
    return answer;
  };
  const person = () => ({
    firstname: "Ada",
    lastname: "Lovelace",
    email: `ada${Math.floor(random.next() * 2)}@example.com`,
  });
  const calls: (() => Promise<{ status: number; body: any }>)[] = [
    () =>
      ctx
        .call("POST", "/charge", { body: { payment_method_id: any(ids.methods), total: 10 } })
        .then(keep(ids.transactions)),
    () =>
      ctx
        .call("POST", "/charge", { body: { payment_method_id: any(ids.methods), total: 10, pre_auth: true } })
        .then(keep(ids.transactions)),
    () => ctx.call("POST", `/transaction/${any(ids.transactions)}/refund`, { body: { total: 1 } }),
    () => ctx.call("POST", `/transaction/${any(ids.transactions)}/void`, { body: {} }),
    () => ctx.call("POST", `/transaction/${any(ids.transactions)}/capture`, { body: {} }),
    async () => {
      const answer = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
        auth: false,
        body: {
          method: "card",
          card_number: "4111111111111111",
          card_exp: "1230",
          person_name: "Ada Lovelace",
          ...person(),
        },
      });
      if (answer.status === 200) ids.customers.push(answer.body.customer_id);
      return keep(ids.methods)(answer);
    },
    () =>
      ctx
        .call("POST", `/webpayment/${ctx.token}/invoice`, {
          auth: false,
          body: { total: 5, ...person(), payment_method_id: any(ids.methods) },
        })
        .then(keep(ids.invoices)),
    () =>
      ctx.call("POST", `/webpayment/${ctx.token}/invoice/${any(ids.invoices)}/pay`, {
        auth: false,
        body: { payment_method_id: any(ids.methods) },
      }),
    () => ctx.call("DELETE", `/invoice/${any(ids.invoices)}`),
    () => ctx.call("DELETE", `/payment-method/${any(ids.methods)}`),
    () =>
      ctx.call("PUT", `/customer/${any(ids.customers)}`, {
        body: { firstname: `Ada${Math.floor(random.next() * 3)}` },
      }),
    () => ctx.call("DELETE", `/customer/${any(ids.customers)}`),
    () =>
      ctx
        .call("POST", "/webhook", {
          body: { target_url: `http://127.0.0.1:9/h${Math.floor(random.next() * 3)}`, event: "*" },
        })
        .then(keep(ids.webhooks)),
    () => ctx.call("DELETE", `/webhook/${any(ids.webhooks)}`),
    () => ctx.call("POST", "/_sandbox/clock/advance", { auth: ctx.apiKey, body: { days: 1 } }),
    () => ctx.call("GET", "/transaction"),
    () => ctx.call("GET", `/invoice/${any(ids.invoices)}`),
    () => (random.next() < 0.15 ? ctx.call("POST", "/_sandbox/reset", { auth: ctx.apiKey }) : ctx.call("GET", "/self")),
  ];
  return { ids, calls };
}

describe("concurrent API calls on one merchant", () => {
  test(`${ROUNDS} rounds of ${AT_ONCE} mixed calls at once, resets among them: never a 5xx`, async () => {
    const ctx = await setup();
    const random = generator(7);
    const { ids, calls } = operations(ctx, random);
    for (let i = 0; i < 5; i++) {
      const pm = await tokenize(ctx);
      ids.methods.push(pm.id);
      ids.customers.push(pm.customer_id);
    }
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => random.pick(calls)()));
      for (const answer of answers) {
        statuses.add(answer.status);
        if (answer.status >= 500) failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    const logged = (ctx.log as unknown as { lines: string[] }).lines.filter((line) => line.includes(" failed: "));
    expect({ failures, logged }).toEqual({ failures: [], logged: [] });
    // The mix really ran: successes and refusals both.
    expect([...statuses].filter((status) => status < 300).length).toBeGreaterThan(0);
    expect([...statuses].filter((status) => status >= 400).length).toBeGreaterThan(0);
  });
});
