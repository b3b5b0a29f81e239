/**
 * The use cases, built once per app: each service gets the storage and the other services it
 * needs, and nothing of HTTP.
 */
import type { Database } from "bun:sqlite";
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
