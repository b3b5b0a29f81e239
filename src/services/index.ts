/**
 * The use cases, built once per app: each service gets the storage and the other services it
 * needs, and nothing of HTTP.
 */
import type { Database, Executor } from "../storage/database";
import { ensureSetting } from "../storage/repositories/settings";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { CustomerService } from "./customers";
import { InvoiceService } from "./invoices";
import { MerchantService } from "./merchants";
import { PaymentMethodService } from "./payment-methods";
import { TransactionService } from "./transactions";
import { Settlement } from "./settlement";
import { WebhookService } from "./webhooks/endpoints";
import { randomToken } from "../lib/crypto";

/** The storage types the layers above the services hold (they never run queries themselves). */
export type { Database, Executor } from "../storage/database";
/** The SQLite connection under the storage Database, as tests and tools see it (AppDeps.sqlite). */
export type SqliteConnection = import("../storage/sqlite/database").SqliteDatabase["raw"];

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
export function databaseSecret(db: Database, name: string): Promise<string> {
  return ensureSetting(db, name, randomToken("", 32));
}

export async function createServices(db: Database, clock: SandboxClock, events: EventBus<Executor>): Promise<Services> {
  const merchants = new MerchantService(db, clock);
  const customers = new CustomerService(db, clock, events);
  const paymentMethods = new PaymentMethodService(db, clock, customers, await databaseSecret(db, "fingerprint_key"));
  const transactions = new TransactionService(db, clock, events, customers, paymentMethods);
  const settlement = new Settlement(db, events, transactions);
  clock.onTick(
    (merchantId, now) => settlement.run(merchantId, now),
    () => settlement.pendingMerchants(),
  );
  const invoices = new InvoiceService(db, clock, events, customers, paymentMethods, transactions);
  const webhooks = new WebhookService(db, clock);
  // The webhook outbox: delivery rows are written inside the unit of work of the change.
  events.on(async (ex, event) => {
    await webhooks.enqueue(ex, event);
  });
  return { merchants, customers, paymentMethods, transactions, settlement, invoices, webhooks };
}
