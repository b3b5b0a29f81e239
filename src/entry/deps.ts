/**
 * The composition root's first half: buildDeps(options) builds, once, everything the HTTP modules
 * are handed (config, clock, events, logger, services, mailer, workers). src/entry/app.ts composes
 * the Elysia app on top of it; src/entry/server.ts and tests build the same deps.
 */
import type { Database, Executor } from "../storage/database";
import { connectionOf } from "../storage/sqlite/connection";
import type { AppDeps } from "../http/deps";
import { createServices } from "../services";
import { DEFAULT_CONFIG, publicUrlOf, type Config } from "../lib/config";
import { SandboxClock } from "../services/clock";
import { EventBus } from "../domain/events";
import { createLogger, type Logger } from "../lib/logger";
import { formatTimestamp } from "../domain/time";
import { Mailer } from "../services/mail/mailer";
import { WebhookDispatcher } from "../services/webhooks/dispatcher";
import { clockTicker } from "./workers";

export interface CreateAppOptions {
  db: Database;
  config?: Partial<Config>;
  /** Overrides the public URL (src/entry/server.ts passes the one it listens on). */
  publicUrl?: string;
  clock?: SandboxClock;
  log?: Logger;
}

export async function buildDeps(options: CreateAppOptions): Promise<AppDeps> {
  const config: Config = { ...DEFAULT_CONFIG, ...options.config };
  const clock = options.clock ?? new SandboxClock(options.db);
  // Clocks a previous run (or another process) advanced.
  await clock.refresh();
  const events = new EventBus<Executor>();
  const log = options.log ?? createLogger({ quiet: config.quiet });
  const mailer = new Mailer(options.db, {
    smtpUrl: config.smtpUrl,
    smtpAllow: config.smtpAllow,
    log,
    now: () => formatTimestamp(clock.realDate()),
  });
  // The address is known only once the server listens (port 0): the services read it when they link.
  const publicUrl = () => deps.publicUrl;
  const services = await createServices({ db: options.db, clock, events, mailer, log, publicUrl, config });
  await services.merchants.ensureDefault(config.defaultWebPaymentsToken, config.defaultApiKey);
  const deps: AppDeps = {
    db: options.db,
    // Only tests read the bun:sqlite connection now; on PostgreSQL there is none to read.
    get sqlite() {
      return connectionOf(options.db);
    },
    config,
    publicUrl: options.publicUrl ?? publicUrlOf(config),
    clock,
    events,
    log,
    services,
    mailer,
    liveStreams: new Set(),
    workers: [
      clockTicker(clock, log),
      mailer.worker(),
      new WebhookDispatcher({
        db: options.db,
        clock,
        outbox: services.webhooks,
        log,
        timeoutMs: config.webhookTimeoutMs,
        targets: services.webhookTargets,
      }),
    ],
  };
  return deps;
}
