/**
 * The PostgreSQL migrations, in order. Imported as text so they are embedded in the compiled binary.
 * Add a file NNN_name.sql (the twin of the SQLite migration of the same number) and one line here;
 * never edit a migration that has shipped.
 */
import m001 from "./001_init.sql" with { type: "text" };
import m019 from "./019_webhook_claims.sql" with { type: "text" };
import m020 from "./020_outbox_order.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "001_init", sql: m001 },
  { version: 19, name: "019_webhook_claims", sql: m019 },
  { version: 20, name: "020_outbox_order", sql: m020 },
];
