/**
 * The composition root of the use cases: every service is built here, once per app, with the
 * storage and the other services it needs and nothing of HTTP. Routes and pages reach them through
 * `deps.services`; none constructs one (tests/unit/architecture.test.ts fails on a `new` of a
 * service class anywhere else but src/entry).
 */
import type { Database, Executor } from "../storage/database";
import { ensureSetting } from "../storage/repositories/settings";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import type { Config } from "../lib/config";
import type { Logger } from "../lib/logger";
import { AdjustmentService } from "./adjustments";
import { AchReturns } from "./ach-returns";
import { CardUpdates } from "./card-updates";
import { DisputeService } from "./disputes";
import { DisputeClock } from "./disputes/clock";
import { StatementService } from "./statements";
import { CustomerService } from "./customers";
import { DashboardService } from "./dashboard";
import { DepositService } from "./deposits";
import { FixtureService } from "./fixtures";
import { InvoiceService } from "./invoices";
import { ItemService } from "./catalog/items";
import { PaymentLinkService } from "./catalog/payment-links";
import { InvoiceScheduleService } from "./invoice-schedules";
import { ScheduleRunner } from "./invoice-schedules/runner";
import type { Mailer } from "./mail/mailer";
import { ReceiptService } from "./mail/receipts";
import { InvoiceMail } from "./mail/invoice-mail";
import { MerchantService } from "./merchants";
import { EphemeralTokens } from "./ephemeral";
import { ReportService } from "./reports";
import { OutcomeService } from "./outcomes";
import { FaultService } from "./faults";
import { FileService } from "./files";
import { PaymentMethodService } from "./payment-methods";
import { SandboxControl } from "./sandbox";
import { SnapshotService } from "./snapshots";
import { TransactionService } from "./transactions";
import { Settlement } from "./settlement";
import { SurchargeService } from "./surcharges";
import { WebhookService } from "./webhooks";
import { WebhookTargets } from "./webhooks/targets";
import { randomToken } from "../lib/crypto";

/** The storage types the layers above the services hold (they never run queries themselves). */
export type { Database, Executor } from "../storage/database";
/** The SQLite connection under the storage Database, as tests and tools see it (AppDeps.sqlite). */
export type SqliteConnection = import("../storage/sqlite/database").SqliteDatabase["raw"];

export interface Services {
  merchants: MerchantService;
  /** GET /ephemeral's short-lived tokens (the merchants service accepts them as the API key). */
  ephemeral: EphemeralTokens;
  /** The statement reports and the team summary (GET /query/statement/v3/…, /query/statistics/teamSummary). */
  reports: ReportService;
  customers: CustomerService;
  paymentMethods: PaymentMethodService;
  transactions: TransactionService;
  /** The settlement jobs (card batches, ACH settlement, deposits), run on every clock tick. */
  settlement: Settlement;
  /** The deposits the settlement jobs wrote (GET /query/deposit, the dashboard). */
  deposits: DepositService;
  /** Deposit adjustments: money moved besides sales and refunds, picked up by the next deposit. */
  adjustments: AdjustmentService;
  /** ACH returns of the returning test accounts (a settlement step). */
  achReturns: AchReturns;
  /** The statement reports (GET /query/statement/v3/adjustments, ach-rejects). */
  statements: StatementService;
  invoices: InvoiceService;
  /** The catalog: items and their stock. */
  items: ItemService;
  /** Payment links and their hosted pages' payments. */
  paymentLinks: PaymentLinkService;
  /** Invoice schedules: their records and changes (GET/POST/PUT/DELETE /invoice/schedule). */
  invoiceSchedules: InvoiceScheduleService;
  /** The clock job that runs the schedules' occurrences (an invoice, its e-mail, its charge). */
  scheduleRunner: ScheduleRunner;
  /** Receipts by e-mail and SMS (after pay(), and the ones a merchant asks for). */
  receipts: ReceiptService;
  /** Invoices sent to their customers by e-mail and SMS, with the hosted pay link. */
  invoiceMail: InvoiceMail;
  webhooks: WebhookService;
  /** Which webhook targets the sandbox sends to and whose answers it shows (--webhook-allow). */
  webhookTargets: WebhookTargets;
  /** What the dashboard pages read. */
  dashboard: DashboardService;
  /** The reset and merchant deletion of /_sandbox. */
  sandbox: SandboxControl;
  /** Outcome sequences armed by POST /_sandbox/outcomes. */
  outcomes: OutcomeService;
  /** Snapshots of a merchant's state and their restore (/_sandbox/snapshots). */
  snapshots: SnapshotService;
  /** Targeted faults armed by POST /_sandbox/faults (fired by the request pipeline). */
  faults: FaultService;
  /** Fixture documents applied to a merchant (/_sandbox/fixtures, --fixtures FILE). */
  fixtures: FixtureService;
  /** The surcharge review and the surcharge statement (the charge adds the surcharge itself). */
  surcharges: SurchargeService;
  /** Files kept with the sandbox (/file) and served at their public_url. */
  files: FileService;
  /** Card disputes: their records, evidence and submission (opened and decided by a settlement step). */
  disputes: DisputeService;
  /** The disputes' clock steps (a settlement step), and a dispute opened at once (POST /_sandbox/disputes). */
  disputeClock: DisputeClock;
}

/** What the services are built from: the storage, the clock and event bus, the outbox, the config. */
export interface ServiceOptions {
  db: Database;
  clock: SandboxClock;
  events: EventBus<Executor>;
  mailer: Mailer;
  log: Logger;
  /** The base URL integrators reach this sandbox at (links in receipts), as it is now. */
  publicUrl: () => string;
  config: Pick<Config, "webhookAllow" | "host">;
}

/** A secret of this database, created on first use (the fingerprint key). */
export function databaseSecret(db: Database, name: string): Promise<string> {
  return ensureSetting(db, name, randomToken("", 32));
}

export async function createServices(options: ServiceOptions): Promise<Services> {
  const { db, clock, events, mailer } = options;
  const ephemeral = new EphemeralTokens(clock, await databaseSecret(db, "ephemeral_key"));
  const merchants = new MerchantService(db, clock, ephemeral);
  const customers = new CustomerService(db, clock, events);
  const paymentMethods = new PaymentMethodService(
    db,
    clock,
    customers,
    await databaseSecret(db, "fingerprint_key"),
    events,
  );
  const transactions = new TransactionService(db, clock, events, customers, paymentMethods);
  const settlement = new Settlement(db, events, transactions);
  const adjustments = new AdjustmentService(db);
  const achReturns = new AchReturns(db, events, transactions, adjustments);
  settlement.addStep(achReturns);
  settlement.addStep(new CardUpdates(db, events, paymentMethods));
  const files = new FileService(db, clock, options.publicUrl);
  const disputes = new DisputeService(db, clock, events, files);
  const disputeClock = new DisputeClock(db, events, adjustments, disputes, mailer, clock);
  settlement.addStep(disputeClock);
  const deposits = new DepositService(db, transactions);
  const invoices = new InvoiceService(db, clock, events, customers, paymentMethods, transactions);
  const invoiceSchedules = new InvoiceScheduleService(db, clock, events, customers, paymentMethods, options.publicUrl);
  const webhooks = new WebhookService(db, clock, events);
  // The webhook outbox: delivery rows are written inside the unit of work of the change.
  // No promise when nothing is written (an event no webhook wants): the bus then stays synchronous.
  events.on((ex, event) => webhooks.enqueue(ex, event));
  const items = new ItemService(db, clock, events);
  const core = { merchants, customers, paymentMethods, transactions, invoices, webhooks, items };
  const snapshots = new SnapshotService(db, core, clock);
  const receipts = new ReceiptService({ ...options, services: core });
  const invoiceMail = new InvoiceMail({ ...options, services: core });
  const scheduleRunner = new ScheduleRunner({
    ...options,
    services: { ...core, receipts, invoiceMail, schedules: invoiceSchedules },
  });
  // Occurrences first, then settlement: a tick that catches up (a restart) makes the charges the
  // occurrences owe before it closes the batches they belong to.
  clock.onTick(
    (merchantId, now) => scheduleRunner.run(merchantId, now),
    () => scheduleRunner.pendingMerchants(),
  );
  clock.addStops((merchantId, afterMs) => scheduleRunner.nextStop(merchantId, afterMs));
  clock.onTick(
    (merchantId, now) => settlement.run(merchantId, now),
    () => settlement.pendingMerchants(),
  );
  return {
    ...core,
    ephemeral,
    reports: new ReportService(db),
    paymentLinks: new PaymentLinkService(db, clock, invoices, paymentMethods, invoiceSchedules, options.publicUrl),
    settlement,
    deposits,
    adjustments,
    achReturns,
    statements: new StatementService(db, achReturns),
    receipts,
    invoiceMail,
    invoiceSchedules,
    scheduleRunner,
    webhookTargets: new WebhookTargets(options.config),
    dashboard: new DashboardService(db, { ...core, deposits, adjustments }, mailer),
    sandbox: new SandboxControl(db, core, clock),
    outcomes: new OutcomeService(db, clock),
    snapshots,
    faults: new FaultService(),
    fixtures: new FixtureService(db, snapshots, clock),
    surcharges: new SurchargeService(db, paymentMethods),
    files,
    disputes,
    disputeClock,
  };
}
