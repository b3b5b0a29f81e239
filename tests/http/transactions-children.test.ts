import { beforeEach, describe, expect, test } from "bun:test";
import { BANK, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { HOUR, startWeek, ts, type Week } from "../support/settlement";

let ctx: TestContext;
let week: Week;
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
});

const ids = async (query: string) =>
  ((await ctx.call("GET", `/transaction${query}`)).body.data as { id: string }[]).map((t) => t.id).sort();
const post = (id: string, action: string, body?: unknown) => ctx.call("POST", `/transaction/${id}/${action}`, { body });

describe("GET /transaction with captures, voids and refunds", () => {
  test("children appear only under their parent, never as rows of their own", async () => {
    const sale = await week.pay(10);
    const voided = await week.pay(20);
    await post(voided.id, "void");
    await week.advance(86_400);
    await post(sale.id, "refund", { total: 4 });
    await post(sale.id, "refund", { total: 1 });
    const list = (await ctx.call("GET", "/transaction")).body;
    expect(list.total).toBe(2);
    const byId = Object.fromEntries(list.data.map((t: any) => [t.id, t]));
    expect(byId[sale.id].child_transactions.map((c: any) => [c.type, c.total])).toEqual([
      ["refund", 4],
      ["refund", 1],
    ]);
    expect(byId[voided.id].child_transactions.map((c: any) => c.type)).toEqual(["void"]);
  });

  test("type=refund, void or capture lists those child transactions themselves, not their parents", async () => {
    const refunded = await week.pay(10);
    const voided = await week.pay(10);
    const plain = await week.pay(10);
    const pm = await tokenize(ctx);
    const auth = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5, pre_auth: true } }))
      .body;
    await post(auth.id, "capture");
    await post(voided.id, "void");
    await week.advance(86_400);
    await post(refunded.id, "refund", { total: 1 });
    const children = async (query: string) =>
      ((await ctx.call("GET", `/transaction${query}`)).body.data as any[]).map((t) => [t.type, t.parent_id, t.total]);
    expect(await children("?type=refund")).toEqual([["refund", refunded.id, 1]]);
    expect(await children("?type=void")).toEqual([["void", voided.id, 10]]);
    expect(await children("?type=capture")).toEqual([["capture", auth.id, 5]]);
    const refundRow = (await ctx.call("GET", "/transaction?type=refund")).body;
    expect(refundRow.total).toBe(1);
    expect(refundRow.data[0].id).not.toBe(refunded.id);
    expect(refundRow.data[0].child_transactions).toEqual([]);
    // Combined with another filter, the child's own columns count.
    expect(await children("?type=refund&method=bank")).toEqual([]);
    expect(await ids("?type=pre_auth")).toEqual([auth.id]);
    expect(await ids("?type=charge")).toEqual([refunded.id, voided.id, plain.id].sort());
  });

  test("filters combine: method, success, customer and date range on the sandbox clock", async () => {
    const card = await tokenize(ctx);
    const bank = await tokenize(ctx, { ...BANK, email: "grace@example.com", person_name: "Grace Hopper" });
    const charge = async (pm: { id: string }, total: number) =>
      (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } })).body;
    const monday = await charge(card, 1);
    const mondayBank = await charge(bank, 2);
    await week.goTo(week.midnight(1) + 10 * HOUR);
    const tuesday = await charge(card, 3);
    const declined = await ctx.call("POST", "/charge", {
      body: { payment_method_id: (await tokenize(ctx, { card_number: "4012888888881881" })).id, total: 4 },
    });
    const tuesdayDate = ts(week.midnight(1)).slice(0, 10);
    expect(await ids(`?startDate=${tuesdayDate}`)).toEqual([tuesday.id, declined.body.transaction.id].sort());
    expect(await ids(`?startDate=${tuesdayDate}&success=true`)).toEqual([tuesday.id]);
    expect(await ids(`?endDate=${ts(week.midnight(1) - 1000).slice(0, 10)}&method=card`)).toEqual([monday.id]);
    expect(await ids(`?method=bank&customer_id=${bank.customer_id}`)).toEqual([mondayBank.id]);
    expect(await ids(`?customer_id=${card.customer_id}&type=charge&success=1`)).toEqual([monday.id, tuesday.id].sort());
    const startAt = encodeURIComponent(ts(week.midnight(1) + 10 * HOUR - 1000));
    expect(await ids(`?startDate=${startAt}&method=card&success=0`)).toEqual([declined.body.transaction.id]);
  });

  test("batch_id lists the transactions with a row in that settlement batch", async () => {
    const sale = await week.pay(10);
    await week.advance(86_400);
    const batch1 = (await week.get(sale.id)).batch_id;
    const other = await week.pay(20);
    await post(sale.id, "refund", { total: 2 });
    await week.advance(86_400);
    const batch2 = (await week.get(other.id)).batch_id;
    expect(await ids(`?batch_id=${batch1}`)).toEqual([sale.id]);
    // The refund of the first sale settled in the second batch.
    expect(await ids(`?batch_id=${batch2}`)).toEqual([sale.id, other.id].sort());
  });

  test("another merchant's customer filter finds nothing", async () => {
    const sale = await week.pay(10);
    const other = await otherMerchant(ctx);
    const res = await ctx.call("GET", `/transaction?customer_id=${sale.customer_id}`, { auth: other.api_key });
    expect(res.body).toMatchObject({ total: 0, data: [] });
  });
});

describe("invoice status follows its transaction", () => {
  async function paidInvoice(total: number) {
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", { body: { customer_id: pm.customer_id, total } });
    expect(invoice.status).toBe(200);
    const paid = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.body.status).toBe("PAID");
    return { id: invoice.body.id as string, charge: paid.body.child_transactions[0].id as string };
  }
  const status = async (id: string) => (await ctx.call("GET", `/invoice/${id}`)).body.status;

  test("a void makes it VOIDED", async () => {
    const invoice = await paidInvoice(30);
    expect((await post(invoice.charge, "void")).status).toBe(200);
    expect(await status(invoice.id)).toBe("VOIDED");
  });

  test("a partial refund makes it PARTIALLY_REFUNDED, refunding the rest REFUNDED", async () => {
    const invoice = await paidInvoice(30);
    await week.advance(86_400);
    await post(invoice.charge, "refund", { total: 10 });
    expect(await status(invoice.id)).toBe("PARTIALLY_REFUNDED");
    await post(invoice.charge, "refund");
    expect(await status(invoice.id)).toBe("REFUNDED");
  });
});
