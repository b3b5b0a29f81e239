/**
 * The sandbox clocks: each merchant's offset from real time lives on its merchants row (the
 * database is the truth; every process reads it from there).
 */
import { sql, type Executor } from "../database";

/** The merchants whose clocks are ahead of real time, with their offsets. */
export function advancedClocks(ex: Executor): Promise<{ id: string; clock_offset_ms: number }[]> {
  return ex.all(sql`SELECT id, clock_offset_ms FROM merchants WHERE clock_offset_ms <> 0`);
}

export async function clockOffset(ex: Executor, merchantId: string): Promise<number> {
  const row = await ex.get<{ clock_offset_ms: number }>(
    sql`SELECT clock_offset_ms FROM merchants WHERE id = ${merchantId}`,
  );
  return Number(row?.clock_offset_ms ?? 0);
}

export async function setClockOffset(ex: Executor, merchantId: string, offsetMs: number): Promise<void> {
  await ex.run(sql`UPDATE merchants SET clock_offset_ms = ${offsetMs} WHERE id = ${merchantId}`);
}

export async function merchantIds(ex: Executor): Promise<string[]> {
  const rows = await ex.all<{ id: string }>(sql`SELECT id FROM merchants`);
  return rows.map((row) => row.id);
}
