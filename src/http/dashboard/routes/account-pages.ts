/** The merchant's own pages: keys, settings, test cards, the clock, and the try-it checkout. */
import { Elysia } from "elysia";
import { TEST_BANK, TEST_CARDS } from "../../../../packages/rules/test-data";
import { formatTimestamp } from "../../../domain/time";
import { clockPage, keysPage, settingsPage, testCardsPage } from "../pages/account";
import { tryItPage } from "../pages/try-it";
import { DASHBOARD_CSP, dashboardPlugin, type DashboardKit } from "./kit";

/** The origin a page is reached at, for frames and requests the CSP must allow (payjs frames). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** `/dashboard/keys`, `/dashboard/settings`, `/dashboard/test-cards`, `/dashboard/clock` and `/dashboard/try`. */
export function accountPages(kit: DashboardKit) {
  const { deps, respond } = kit;
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(dashboardPlugin(kit))
    .get("/dashboard/keys", ({ merchant, request }) =>
      respond(merchant, "/dashboard/keys", request, { title: "Keys", body: keysPage(merchant, deps.publicUrl) }),
    )
    .get("/dashboard/settings", ({ merchant, request }) =>
      respond(merchant, "/dashboard/settings", request, { title: "Settings", body: settingsPage(merchant) }),
    )
    .get("/dashboard/test-cards", ({ merchant, request }) =>
      respond(merchant, "/dashboard/test-cards", request, {
        title: "Test cards",
        body: testCardsPage(TEST_CARDS, TEST_BANK),
      }),
    )
    .get("/dashboard/clock", ({ merchant, request }) =>
      respond(merchant, "/dashboard/clock", request, {
        title: "Clock",
        body: clockPage(
          deps.clock.timestamp(merchant.id),
          deps.clock.offsetMs(merchant.id),
          formatTimestamp(deps.clock.realDate()),
        ),
      }),
    )
    .get("/dashboard/try", ({ merchant, request }) => {
      // payjs frames come from the sandbox's public URL, which may differ from the address this page was opened at.
      const origins = [...new Set([originOf(request.url), originOf(deps.publicUrl)])].filter(Boolean).join(" ");
      const csp = DASHBOARD_CSP.replace("frame-src 'self'", `frame-src 'self' ${origins}`)
        .replace("connect-src 'self'", `connect-src 'self' ${origins}`)
        .replace("script-src 'self'", `script-src 'self' ${origins}`);
      return respond(
        merchant,
        "/dashboard/try",
        request,
        {
          title: "Try it",
          body: tryItPage(merchant.web_payments_token),
          live: false,
          scripts: ["/payjs.js", "/dashboard/assets/try.js"],
        },
        { csp },
      );
    });
}
