/**
 * The dashboard: server-rendered pages at / and /dashboard/*, a live-refresh event stream, and
 * the actions it offers (pick a merchant, operate on a transaction, manage webhooks, change
 * settings, advance the clock). Loopback only unless --allow-remote-sandbox; every page is built
 * with the one escaping helper (src/lib/html.ts) and served with a CSP that allows only this
 * origin's scripts and styles. One file per idea: `kit.ts` (what every route shares), the pages
 * (`record-pages.ts`, `catalog-pages.ts`, `schedule-pages.ts`, `outbox-pages.ts`,
 * `account-pages.ts`, `file-pages.ts`), the form actions (`record-actions.ts`, `account-actions.ts`), `live.ts` and
 * `assets.ts`; the HTML of each page is in ../pages.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { accountActions } from "./account-actions";
import { accountPages } from "./account-pages";
import { assetRoutes } from "./assets";
import { catalogPages } from "./catalog-pages";
import { filePages } from "./file-pages";
import { dashboardKit } from "./kit";
import { liveRoutes } from "./live";
import { outboxPages } from "./outbox-pages";
import { recordActions } from "./record-actions";
import { recordPages } from "./record-pages";
import { schedulePages } from "./schedule-pages";

export { DASHBOARD_CSP, MERCHANT_COOKIE } from "./kit";
export { closeLiveStreams } from "./live";

export function dashboardRoutes(deps: AppDeps) {
  const kit = dashboardKit(deps);
  return new Elysia()
    .use(assetRoutes(deps))
    .use(recordPages(kit))
    .use(catalogPages(kit))
    .use(schedulePages(kit))
    .use(outboxPages(kit))
    .use(accountPages(kit))
    .use(filePages(kit))
    .use(recordActions(kit))
    .use(accountActions(kit))
    .use(liveRoutes(kit));
}
