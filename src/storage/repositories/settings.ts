import { sql, type Executor } from "../database";

/** A named value of this database (sandbox_settings): the fingerprint key. */
export async function findSetting(ex: Executor, name: string): Promise<string | undefined> {
  return (await ex.get<{ value: string }>(sql`SELECT value FROM sandbox_settings WHERE name = ${name}`))?.value;
}

/** Stores `value` under `name` unless one is there; returns the stored one either way. */
export async function ensureSetting(ex: Executor, name: string, value: string): Promise<string> {
  await ex.run(
    sql`INSERT INTO sandbox_settings (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO NOTHING`,
  );
  return (await findSetting(ex, name))!;
}
