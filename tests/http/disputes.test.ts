/**
 * Disputes on the sandbox clock (docs/settlement.md, "Disputes"), through the API: a disputed test card's sale
 * settles, its dispute opens on the documented day (amount and fee withdrawn from the next deposit,
 * create_dispute, an e-mail to the merchant), and is won with winning evidence (the amount given
 * back), lost with losing evidence, or lost unanswered at respond_by. Both databases.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { CARD, setup, tokenize, type TestContext } from "../support/app";
import { date, DAY, HOUR, startWeek, ts, type Week } from "../support/settlement";
import { DISPUTE_MESSAGES } from "../../src/services/disputes/rules";

let ctx: TestContext;
let week: Week;
let events: { name: string; record: any }[];
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
  events = [];
  ctx.deps.events.on((_ex, e) => void events.push({ name: e.name, record: e.record }));
});

const get = async (path: string) => {
  const res = await ctx.call("GET", path);
  expect(res.status).toBe(200);
  return res.body;
};

/** A sale on a disputed test card. */
async function payWith(cardNumber: string, total: number) {
  const pm = await tokenize(ctx, { ...CARD, card_number: cardNumber });
  const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
  expect(res.status).toBe(200);
  return res.body;
}

/** Evidence as multipart/form-data through the app. */
async function upload(disputeId: string, name: string, content: string) {
  const form = new FormData();
  form.set("dispute_id", disputeId);
  form.set("name", name);
  form.set("file", new File([content], "evidence.txt", { type: "text/plain" }));
  const res = await ctx.app.handle(
    new Request("http://localhost/file/dispute", {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}` },
      body: form,
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

const FRAUD_CARD = "4000000000000259"; // FRAUD, 3 days after settlement

describe("a dispute opens on its documented day", () => {
  test("FRAUD 3 days after settlement: PENDING, withdrawn with the fee, create_dispute, e-mail, reports", async () => {
    const sale = await payWith(FRAUD_CARD, 100);
    // Settled at Tuesday 00:00 (the card batch); nothing yet on Thursday.
    await week.goTo(week.midnight(3) + HOUR);
    expect((await get("/underwriting/disputes")).data).toEqual([]);
    // Opens at the third midnight after settlement: Friday 00:00.
    await week.goTo(week.midnight(4) + HOUR);
    const list = await get("/underwriting/disputes");
    expect(list).toMatchObject({ total: 1, current_page: 1, last_page: 1, from: 1, to: 1 });
    const [dispute] = list.data;
    expect(dispute).toMatchObject({
      transaction_id: sale.id,
      merchant_id: ctx.merchantId,
      reason: "FRAUD",
      amount: 100,
      fee: 20,
      status: "PENDING",
      respond_by: ts(week.midnight(14)),
      created_at: ts(week.midnight(4)),
      files: [],
    });
    expect(events.filter((e) => e.name === "create_dispute").map((e) => e.record)).toEqual([dispute]);

    const { data: deposits } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    expect(deposits.map((d: any) => [d.deposit_date, d.count, d.gross, d.fees, d.adjustments, d.net])).toEqual([
      [date(week.midnight(4)), 0, 0, 0, -120, -120],
      [date(week.midnight(2)), 1, 100, 3.2, 0, 96.8],
    ]);
    const detail = await get(`/query/depositDetail?batch_id=${deposits[0].batch_id}`);
    expect(detail.data.map((r: any) => [r.adjustment_kind, r.adjustment_code, r.transaction_id, r.net])).toEqual([
      ["dispute", "FRAUD", sale.id, -100],
      ["dispute_fee", "FRAUD", sale.id, -20],
    ]);
    const statement = await get(`/query/statement/v3/disputes?startDate=${date(week.midnight(0))}`);
    expect(statement.data).toEqual([
      {
        id: detail.data[0].adjustment_id,
        date: ts(week.midnight(4)),
        type: "HOLD",
        dispute_amount: 100,
        fee_amount: 20,
        dispute_id: dispute.id,
        transaction_id: sale.id,
        reason: "FRAUD",
        status: "PENDING",
        deposit_id: deposits[0].id,
        net: -120,
      },
    ]);
    expect(statement.summary).toEqual({ dispute_amount_total: -100, fee_amount_total: 20, count: 1 });
    expect(statement).toMatchObject({ total: 1, current_page: 1, last_page: 1, next_page_url: null });
    const adjustments = await get(`/query/statement/v3/adjustments?startDate=${date(week.midnight(0))}`);
    expect(adjustments.data.map((r: any) => [r.type, r.subtype, r.amount, r.net])).toEqual([
      ["dispute", "FRAUD", 100, -100],
      ["dispute_fee", "FRAUD", 20, -20],
    ]);

    const mail = (await ctx.call("GET", "/_sandbox/emails/latest")).body;
    expect(mail).toMatchObject({ kind: "dispute", transaction_id: sale.id, created_at: ts(week.midnight(4)) });
    expect(mail.subject).toContain("Dispute opened: $100.00 (FRAUD)");
    expect(mail.text).toContain(`Respond by ${ts(week.midnight(14))}`);
    expect(mail.text).not.toContain(FRAUD_CARD);

    // The filters of the real list.
    expect((await get(`/underwriting/disputes?transaction_id=${sale.id}`)).total).toBe(1);
    expect((await get("/underwriting/disputes?status=WON")).total).toBe(0);
    expect((await get("/underwriting/disputes?reason=FRAUD&status=PENDING")).total).toBe(1);
    expect((await get(`/underwriting/disputes?startDate=${date(week.midnight(5))}`)).total).toBe(0);
    expect((await ctx.call("GET", "/underwriting/disputes?status=OPEN")).status).toBe(422);
  });
});

describe("the outcome on the clock", () => {
  test("won with a winning_evidence file: EVIDENCE_UPLOADED, then WON 10 days later and the amount given back", async () => {
    const sale = await payWith(FRAUD_CARD, 80.55);
    await week.goTo(week.midnight(4) + HOUR);
    const [dispute] = (await get("/underwriting/disputes")).data;
    const up = await upload(dispute.id, "Signed delivery receipt", "Delivered and signed for. winning_evidence");
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ tag: "dispute", dispute_id: dispute.id, meta: { mime: "text/plain" } });
    expect((await get("/underwriting/disputes")).data[0].files.map((f: any) => f.id)).toEqual([up.body.id]);

    await week.goTo(week.midnight(6) + 3 * HOUR);
    const submitted = await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, { body: {} });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({
      status: "EVIDENCE_UPLOADED",
      submitted_at: ts(week.midnight(6) + 3 * HOUR),
      decision_at: ts(week.midnight(17)),
    });
    // Submitted: its evidence is fixed and it cannot be submitted twice.
    expect((await upload(dispute.id, "more", "more")).status).toBe(422);
    expect((await ctx.call("DELETE", `/file/dispute/${up.body.id}`)).status).toBe(422);
    expect((await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, { body: {} })).status).toBe(422);

    await week.goTo(week.midnight(16) + HOUR);
    expect((await get("/underwriting/disputes")).data[0].status).toBe("EVIDENCE_UPLOADED");
    await week.goTo(week.midnight(17) + HOUR);
    const won = (await get("/underwriting/disputes")).data[0];
    expect(won).toMatchObject({ status: "WON", closed_at: ts(week.midnight(17)) });
    expect(events.filter((e) => e.record.id === dispute.id).map((e) => [e.name, e.record.status])).toEqual([
      ["create_dispute", "PENDING"],
      ["update_dispute", "PENDING"],
      ["update_dispute", "EVIDENCE_UPLOADED"],
      ["update_dispute", "WON"],
    ]);
    const statement = await get(`/query/statement/v3/disputes?startDate=${date(week.midnight(0))}`);
    expect(statement.data.map((r: any) => [r.type, r.dispute_amount, r.fee_amount, r.date])).toEqual([
      ["HOLD", 80.55, 20, ts(week.midnight(4))],
      ["RELEASE", 80.55, 0, ts(week.midnight(17))],
    ]);
    expect(statement.summary).toEqual({ dispute_amount_total: 0, fee_amount_total: 20, count: 2 });
    // Deposits: the sale's, the withdrawal (amount and fee), the reversal; in all the sale less its fee and the dispute fee.
    const { data: deposits } = await get(`/query/deposit?startDate=${date(week.midnight(0))}&per_page=50`);
    const cents = (v: number) => Math.round(v * 100);
    expect(deposits.map((d: any) => cents(d.net))).toEqual([8055, -10055, 8055 - 264]);
    expect(deposits.reduce((sum: number, d: any) => sum + cents(d.net), 0)).toBe(8055 - 264 - 2000);
    // The dashboard: the list (under Files), the dispute's page with its evidence, the transaction's page.
    const page = (path: string) => ctx.app.handle(new Request(`http://localhost${path}`)).then((r) => r.text());
    const listPage = await page("/dashboard/disputes");
    expect(listPage).toContain(`data-dispute="${dispute.id}" data-status="WON"`);
    const detailPage = await page(`/dashboard/disputes/${dispute.id}`);
    expect(detailPage).toContain("Signed delivery receipt");
    expect(detailPage).toContain(`data-file="${up.body.id}"`);
    expect(detailPage).toContain("$80.55");
    const txPage = await page(`/dashboard/transactions/${sale.id}`);
    expect(txPage).toContain(`href="/dashboard/disputes/${dispute.id}"`);
    expect(txPage).toContain("Dispute fee");
    expect(await page("/dashboard/files")).toContain(`href="/dashboard/disputes/${dispute.id}"`);
    expect((await ctx.app.handle(new Request("http://localhost/dashboard/disputes/nope"))).status).toBe(404);
    // Closed: no more evidence.
    expect((await upload(dispute.id, "late", "late")).status).toBe(422);
    expect(sale.id).toBe(won.transaction_id);
  });

  test("lost with losing_evidence notes: LOST at the decision, nothing given back", async () => {
    await payWith("5200000000002599", 40); // DUPLICATE, 7 days
    await week.goTo(week.midnight(8) + HOUR);
    const [dispute] = (await get("/underwriting/disputes")).data;
    expect(dispute).toMatchObject({ reason: "DUPLICATE", status: "PENDING", created_at: ts(week.midnight(8)) });
    // Nothing to submit yet.
    const empty = await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, { body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.code).toBe("validation_error");
    const submitted = await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, {
      body: { notes: "We have nothing: losing_evidence" },
    });
    expect(submitted.status).toBe(200);
    await week.goTo(week.midnight(19) + HOUR);
    const lost = (await get("/underwriting/disputes")).data[0];
    expect(lost).toMatchObject({ status: "LOST", notes: "We have nothing: losing_evidence" });
    const statement = await get("/query/statement/v3/disputes");
    expect(statement.data.map((r: any) => r.type)).toEqual(["HOLD"]);
    expect(statement.summary).toEqual({ dispute_amount_total: -40, fee_amount_total: 20, count: 1 });
  });

  test("unanswered: LOST at respond_by; a submit after it is refused and changes nothing", async () => {
    await payWith("4000000000002685", 25); // PRODUCT_NOT_RECEIVED, 5 days
    await week.goTo(week.midnight(6) + HOUR);
    const [dispute] = (await get("/underwriting/disputes")).data;
    expect(dispute.respond_by).toBe(ts(week.midnight(16)));
    const up = await upload(dispute.id, "note", "winning_evidence");
    expect(up.status).toBe(201);
    await week.goTo(week.midnight(16) + HOUR);
    const lost = (await get("/underwriting/disputes")).data[0];
    expect(lost).toMatchObject({ status: "LOST", closed_at: ts(week.midnight(16)), submitted_at: null });
    const late = await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, { body: {} });
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ code: "invalid_state", respond_by: ts(week.midnight(16)) });
    expect(late.body.message).toBe(DISPUTE_MESSAGES.pastDue(ts(week.midnight(16))));
    expect((await get("/underwriting/disputes")).data[0]).toEqual(lost);
    await week.goTo(week.midnight(16) + 60 * DAY);
    expect((await get("/query/statement/v3/disputes")).total).toBe(1);
  });
});

describe("POST /_sandbox/disputes", () => {
  test("opens a dispute on any settled card payment now; a bank, unsettled or disputed one is refused, writing nothing", async () => {
    const card = await week.pay(30);
    const bank = await week.pay(30, "bank");
    const open = (transaction_id: string, reason?: string) =>
      ctx.call("POST", "/_sandbox/disputes", { body: { transaction_id, reason } });
    const early = await open(card.id);
    expect(early.status).toBe(422);
    expect(early.body.message).toBe(DISPUTE_MESSAGES.notDisputable);
    await week.goTo(week.midnight(4) + HOUR);
    const refused = await open(bank.id);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "invalid_state", message: DISPUTE_MESSAGES.bank });
    expect((await open("no-such-transaction")).status).toBe(404);
    expect((await open(card.id, "BOGUS")).status).toBe(422);
    expect((await get("/underwriting/disputes")).total).toBe(0);
    expect(events.filter((e) => e.name === "create_dispute")).toEqual([]);

    const opened = await open(card.id, "DUPLICATE");
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      transaction_id: card.id,
      reason: "DUPLICATE",
      amount: 30,
      status: "PENDING",
    });
    // Opened now (the sandbox clock runs in real time too: a second may have passed since goTo).
    const openedAt = Date.parse(`${opened.body.created_at.replace(" ", "T")}Z`);
    expect(openedAt - (week.midnight(4) + HOUR)).toBeLessThan(10_000);
    expect(opened.body.respond_by).toBe(ts(openedAt + 10 * DAY));
    const twice = await open(card.id);
    expect(twice.status).toBe(422);
    expect(twice.body.message).toBe(DISPUTE_MESSAGES.alreadyDisputed);
    expect((await get("/underwriting/disputes")).data).toEqual([opened.body]);
    // Withdrawn from the next card deposit, at the next midnight.
    await week.goTo(week.midnight(5) + HOUR);
    const { data: deposits } = await get(`/query/deposit?startDate=${date(week.midnight(5))}`);
    expect(deposits.map((d: any) => [d.deposit_date, d.adjustments])).toEqual([[date(week.midnight(5)), -50]]);
  });
});
