/**
 * README.md's invoice schedule block, run as printed against a sandbox on the documented address
 * (tests/docs/shell.ts): the schedule is made, a year's advance bills it twelve times.
 */
import { describe, expect, test } from "bun:test";
import { docBlock } from "./blocks";
import { runInNamespace } from "./shell";

describe("README.md: invoice schedules, pasted into a shell", () => {
  test("the schedule is created and a year's advance makes its twelve paid invoices", async () => {
    const { runs, log } = await runInNamespace([docBlock("invoice-schedules").code], {
      sandbox: true,
      timeoutMs: 60_000,
    });
    expect(runs[0]!.code, log).toBe(0);
    const [schedule, advance, invoices] = runs[0]!.output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(schedule, log).toMatchObject({
      status: "ACTIVE",
      max: 12,
      total: 49.99,
      rule_text: "every month for 12 times",
    });
    expect(advance.now > schedule.created_at).toBe(true);
    expect(invoices.total, log).toBe(12);
    expect(
      invoices.data.every(
        (i: { status: string; schedule_id: string }) => i.status === "PAID" && i.schedule_id === schedule.id,
      ),
    ).toBe(true);
  }, 90_000);
});
