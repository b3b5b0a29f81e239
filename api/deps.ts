import type { Database } from "bun:sqlite";
import type { Config } from "../config";
import type { SandboxClock } from "../lib/clock";
import type { EventBus } from "../lib/events";
import type { Logger } from "../lib/logger";
import type { Mailer } from "../mail/mailer";
import { CustomerService } from "./customers/service";
import { InvoiceService } from "./invoices/service";
import { MerchantService } from "./merchants/service";
import { PaymentMethodService } from "./payment-methods/service";
import { TransactionService } from "./transactions/service";
import { Settlement } from "../processor/settlement";
import { WebhookService } from "./webhooks/service";
import { randomToken } from "../lib/crypto";

/** Everything a module needs, built once by createApp and handed to every plugin. */
export interface AppDeps {
  db: Database;
  config: Config;
  /** The base URL integrators reach this sandbox at. */
  publicUrl: string;
  clock: SandboxClock;
  events: EventBus;
  log: Logger;
  services: Services;
  /** The e-mail and SMS outboxes (mail/mailer.ts); relays e-mail too with --smtp. */
  mailer: Mailer;
  /** Background loops (the real-time clock ticker, the webhook dispatcher, ...): started by server.ts, and by tests that need them. */
  workers: Worker[];
}

export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void> | void;
}

export interface Services {
  merchants: MerchantService;
  customers: CustomerService;
  paymentMethods: PaymentMethodService;
  transactions: TransactionService;
  /** The settlement jobs (card batches, ACH settlement, deposits), run on every clock tick. */
  settlement: Settlement;
  invoices: InvoiceService;
  webhooks: WebhookService;
}

/** A secret of this database, created on first use (the fingerprint key). */
export function databaseSecret(db: Database, name: string): string {
  const existing = db.query<{ value: string }, [string]>("SELECT value FROM sandbox_settings WHERE name = ?").get(name);
  if (existing) return existing.value;
  const value = randomToken("", 32);
  db.query("INSERT INTO sandbox_settings (name, value) VALUES (?, ?)").run(name, value);
  return value;
}

export function createServices(db: Database, clock: SandboxClock, events: EventBus): Services {
  const merchants = new MerchantService(db, clock);
  const customers = new CustomerService(db, clock, events);
  const paymentMethods = new PaymentMethodService(db, clock, customers, databaseSecret(db, "fingerprint_key"));
  const transactions = new TransactionService(db, clock, events, customers, paymentMethods);
  const settlement = new Settlement(db, events, transactions);
  clock.onTick(
    (merchantId, now) => settlement.run(merchantId, now),
    () => settlement.pendingMerchants(),
  );
  const invoices = new InvoiceService(db, clock, events, customers, paymentMethods, transactions);
  const webhooks = new WebhookService(db, clock);
  // The webhook outbox: delivery rows are written inside the transaction of the change.
  events.on((event) => webhooks.enqueue(event));
  return { merchants, customers, paymentMethods, transactions, settlement, invoices, webhooks };
}
