import type { Config } from "../lib/config";
import type { SandboxClock } from "../services/clock";
import type { EventBus } from "../domain/events";
import type { Logger } from "../lib/logger";
import type { Mailer } from "../services/mail/mailer";
import type { Worker } from "../lib/worker";
import type { Database, Executor, Services, SqliteConnection } from "../services";

/** Everything a module needs, built once by createApp and handed to every plugin. */
export interface AppDeps {
  /** The storage (src/storage/database.ts): services run their repositories on it. */
  db: Database;
  /**
   * The SQLite connection under `db`, for tests and tools that look at the file directly. No module
   * of the app runs statements on it: they all go through `db` and src/storage.
   */
  sqlite: SqliteConnection;
  config: Config;
  /** The base URL integrators reach this sandbox at. */
  publicUrl: string;
  clock: SandboxClock;
  events: EventBus<Executor>;
  log: Logger;
  services: Services;
  /** The e-mail and SMS outboxes (src/services/mail/mailer.ts); relays e-mail too with --smtp. */
  mailer: Mailer;
  /**
   * The close functions of the open live-refresh streams of the dashboard
   * (src/http/dashboard/routes/live.ts): a shutdown ends them (closeLiveStreams).
   */
  liveStreams: Set<() => void>;
  /** Background loops (the real-time clock ticker, the webhook dispatcher, ...): started by src/entry/server.ts, and by tests that need them. */
  workers: Worker[];
}

export type { Worker } from "../lib/worker";
export type { Services } from "../services";
