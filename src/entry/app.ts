/**
 * createApp(deps) composes every module into one Elysia app. src/entry/server.ts listens with it; tests
 * build the very same app and call app.handle(new Request(...)).
 */
import { Elysia } from "elysia";
import { chargeRoutes } from "../http/routes/charge";
import { accountRoutes } from "../http/routes/account";
import { outsidePaymentRoutes } from "../http/routes/invoices-outside";
import { customerRoutes } from "../http/routes/customers";
import { dashboardRoutes } from "../http/dashboard/routes";
import { invoiceRoutes } from "../http/routes/invoices";
import { itemRoutes } from "../http/routes/items";
import { paymentLinkRoutes } from "../http/routes/payment-links";
import { publicPaymentLinkRoutes } from "../http/routes/payment-links-public";
import { invoiceScheduleRoutes } from "../http/routes/invoice-schedules";
import { publicInvoiceRoutes } from "../http/routes/invoices-public";
import { receiptRoutes } from "../http/routes/receipts";
import type { AppDeps } from "../http/deps";
import { surchargeRoutes } from "../http/routes/surcharges";
import { depositRoutes } from "../http/routes/deposits";
import { faviconRoutes } from "../http/routes/favicon";
import { fileContentRoutes, fileRoutes } from "../http/routes/files";
import { parseJsonBody, pipeline } from "../http/pipeline";
import { openapiRoutes } from "../http/openapi/ui";
import { paymentMethodRoutes } from "../http/routes/payment-methods";
import { payjsRoutes } from "../http/payjs/routes";
import { sandboxRoutes } from "../http/routes/sandbox";
import { transactionRoutes } from "../http/routes/transactions";
import { webpaymentRoutes } from "../http/routes/webpayment";
import { webhookRoutes } from "../http/routes/webhooks";
import { disputeRoutes } from "../http/routes/disputes";
import { hostedRoutes } from "../http/hosted/index";
import { shareCompiledChecks } from "../http/compiled-checks";
import pkg from "../../package.json";
import { buildDeps, type CreateAppOptions } from "./deps";
import type { RouteInfo } from "../services/faults";

export { buildDeps, type CreateAppOptions } from "./deps";
export { startWorkers, stopWorkers } from "./workers";

export const VERSION: string = pkg.version;
/** The license of this project (package.json), stated in the OpenAPI document. */
const LICENSE = { name: `${pkg.license} License`, identifier: pkg.license };

export async function createApp(options: CreateAppOptions) {
  const deps = await buildDeps(options);
  return composeApp(deps);
}

export function composeApp(deps: AppDeps) {
  // Every app of this process shares the route schemas' compiled checks (src/http/compiled-checks.ts).
  shareCompiledChecks();
  // The routes of the composed app, for the fault patterns of /_sandbox/faults to be checked against.
  const routes: RouteInfo[] = [];
  // The fixture steps run through a second instance of this app, made on first use: it has no
  // server, so its sandbox controls see the steps as the local requests they are.
  let inProcess: { handle(request: Request): Promise<Response> } | undefined;
  const handle = (request: Request): Promise<Response> =>
    (inProcess ??= composeApp(deps) as { handle(request: Request): Promise<Response> }).handle(request);
  const app = new Elysia()
    .decorate("deps", deps)
    // The pipeline, in order (src/http/pipeline/index.ts): host check → CORS → cross-site and
    // loopback checks of the sandbox controls → rate limits; then per route auth → body and
    // validation → handler; the error envelope for any error on the way.
    .use(pipeline(deps))
    .use(openapiRoutes(deps, { version: VERSION, license: LICENSE, jsonParser: parseJsonBody }))
    .use(faviconRoutes())
    .use(webpaymentRoutes(deps))
    .use(payjsRoutes(deps))
    .use(publicInvoiceRoutes(deps))
    .use(publicPaymentLinkRoutes(deps))
    // The schedules before the invoices (/invoice/schedule is no GET /invoice/{id}), as one plugin:
    // every .use() here deepens the app's type, and TypeScript gives up past a depth (TS2589).
    .use(new Elysia().use(invoiceScheduleRoutes(deps)).use(invoiceRoutes(deps)))
    .use(outsidePaymentRoutes(deps))
    .use(receiptRoutes(deps))
    .use(hostedRoutes(deps))
    .use(chargeRoutes(deps))
    .use(transactionRoutes(deps))
    // The statements (deposits, surcharges) as one plugin: each .use() here deepens the type (TS2589).
    .use(new Elysia().use(depositRoutes(deps)).use(surchargeRoutes(deps)))
    .use(customerRoutes(deps))
    .use(itemRoutes(deps))
    .use(paymentLinkRoutes(deps))
    .use(paymentMethodRoutes(deps))
    .use(accountRoutes(deps))
    // One plugin for the four (TS2589, above): webhooks, files and their public bytes, disputes.
    .use(
      new Elysia().use(webhookRoutes(deps)).use(fileRoutes(deps)).use(fileContentRoutes(deps)).use(disputeRoutes(deps)),
    )
    .use(sandboxRoutes(deps, () => routes, handle))
    .use(dashboardRoutes(deps));
  routes.push(...app.routes.map((route) => ({ method: route.method, path: route.path })));
  return app;
}

export type App = ReturnType<typeof composeApp>;
