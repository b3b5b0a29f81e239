/**
 * What a user checks after applying a document of examples/fixtures, asked of the API as they
 * would: the same checks run after `POST /_sandbox/fixtures` (tests/http/fixtures.test.ts, both
 * databases) and after a start with `--fixtures FILE` (tests/cli/fixtures.test.ts).
 */
import { expect } from "bun:test";

/** A GET as the merchant: the answer's status and body. */
export type Get = (path: string) => Promise<{ status: number; body: any }>;

async function ok(get: Get, path: string) {
  const res = await get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body;
}

/** The state each example document makes, checked through the API. */
export const EXAMPLE_STATES: Record<string, (get: Get) => Promise<void>> = {
  /** A monthly schedule on Ada's card: three occurrences billed and paid, the fourth to come. */
  "subscription-three-months-in.json": async (get) => {
    const schedules = await ok(get, "/invoice/schedule");
    expect(schedules.data).toHaveLength(1);
    const [schedule] = schedules.data;
    expect(schedule).toMatchObject({ status: "ACTIVE", count: 3, total: 29, last_invoice_status: "PAID" });
    expect(schedule.invoice_ids).toHaveLength(3);
    expect(schedule.next_run_at > schedule.last_run_at).toBe(true);
    const invoices = (await ok(get, "/invoice?per_page=100")).data;
    expect(invoices.map((i: any) => [i.status, i.total, i.schedule_id])).toEqual(
      Array(3).fill(["PAID", 29, schedule.id]),
    );
    // A month apart (newest first): 28 to 31 days.
    const days = invoices.map((i: any) => Date.parse(`${i.created_at.replace(" ", "T")}Z`) / 86_400_000);
    for (let k = 1; k < days.length; k++) expect([28, 29, 30, 31]).toContain(Math.round(days[k - 1] - days[k]));
    const charges = (await ok(get, "/transaction?per_page=100")).data;
    expect(charges.map((t: any) => [t.type, t.success, t.total, t.schedule_id])).toEqual(
      Array(3).fill(["charge", true, 29, schedule.id]),
    );
  },
  /** Grace's 100.00 debit from account 2000000001: settled, then returned with R01 and its fee. */
  "ach-returned-r01.json": async (get) => {
    const transactions = (await ok(get, "/transaction?per_page=100")).data;
    expect(transactions).toHaveLength(1);
    const sale = await ok(get, `/transaction/${transactions[0].id}`);
    expect(sale).toMatchObject({ method: "bank", total: 100, success: true, is_voided: true, is_refundable: false });
    expect(sale.settled_at).not.toBeNull();
    expect(sale.child_transactions).toHaveLength(1);
    expect(sale.child_transactions[0]).toMatchObject({
      type: "void",
      total: 100,
      decline_code: "R01",
      message: "R01: Insufficient funds",
    });
    const rejects = await ok(get, "/query/statement/v3/ach-rejects");
    expect(
      rejects.data.map((r: any) => [r.original_transaction_id, r.ach_reject_code, r.ach_reject_fee_amount]),
    ).toEqual([[sale.id, "R01", 15]]);
  },
  /** Alan's 50.00 on the FRAUD test card: settled, then disputed; the amount and a 20.00 fee held. */
  "disputed-charge.json": async (get) => {
    const [sale] = (await ok(get, "/transaction?per_page=100")).data;
    expect(sale).toMatchObject({ type: "charge", success: true, total: 50 });
    const disputes = (await ok(get, "/underwriting/disputes")).data;
    expect(disputes).toHaveLength(1);
    expect(disputes[0]).toMatchObject({
      transaction_id: sale.id,
      reason: "FRAUD",
      status: "PENDING",
      amount: 50,
      fee: 20,
    });
    const days = (stamp: string) => Date.parse(`${stamp.replace(" ", "T")}Z`) / 86_400_000;
    expect(days(disputes[0].respond_by) - days(disputes[0].created_at)).toBe(10);
    const statement = await ok(get, "/query/statement/v3/disputes");
    expect(statement.data.map((r: any) => [r.type, r.dispute_id, r.net])).toEqual([["HOLD", disputes[0].id, -70]]);
  },
};
