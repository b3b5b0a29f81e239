/**
 * The sandbox controls: every `/_sandbox` route, in one plugin the app mounts once. One file per
 * control — the e-mail and SMS outboxes, the clock, webhook deliveries, merchants for tests, the
 * test cards, disputes on demand, outcome sequences, faults, the reset, snapshots, fixtures — and `control.ts` for what they share. Each control is guarded to loopback
 * clients itself (unless --allow-remote-sandbox), so it stays guarded wherever it is mounted; the
 * acting merchant is the one whose API key is sent, else the default merchant.
 * tests/http/sandbox-module.test.ts checks that no other module registers a `/_sandbox` path.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { clockRoutes } from "./clock";
import { fixtureRoutes, type InProcessHandle } from "./fixtures";
import { merchantRoutes } from "./merchants";
import { outboxRoutes } from "./outbox";
import { outcomeRoutes } from "./outcomes";
import { faultRoutes } from "./faults";
import type { RouteInfo } from "../../../services/faults";
import { resetRoutes } from "./reset";
import { snapshotRoutes } from "./snapshots";
import { testCardRoutes } from "./test-cards";
import { sandboxDisputeRoutes } from "./disputes";
import { webhookDeliveryRoutes } from "./webhook-deliveries";

export { loopbackOnly, sandboxMerchant } from "./control";
export { assertWithinClockLimit, MAX_ADVANCE_SECONDS } from "./clock";
export { SANDBOX_MESSAGES } from "./merchants";
export { EmailRecord, SmsRecord } from "./outbox";

export type { InProcessHandle } from "./fixtures";

/** Mounted on its own (a test of the module), there is no app for the fixture steps to go through. */
const NO_APP: InProcessHandle = () => Promise.reject(new Error("the sandbox routes are mounted without an app"));

/**
 * Every `/_sandbox` route (tagged "Sandbox control" in the OpenAPI document). `routes` lists the
 * app's routes once it is composed (the fault patterns are checked against them); `handle` runs a
 * request through the whole app in-process (the fixture steps go through it).
 */
export function sandboxRoutes(
  deps: AppDeps,
  routes: () => readonly RouteInfo[] = () => [],
  handle: InProcessHandle = NO_APP,
) {
  return new Elysia()
    .use(outboxRoutes(deps))
    .use(clockRoutes(deps))
    .use(webhookDeliveryRoutes(deps))
    .use(merchantRoutes(deps))
    .use(testCardRoutes(deps))
    .use(sandboxDisputeRoutes(deps))
    .use(outcomeRoutes(deps))
    .use(faultRoutes(deps, routes))
    .use(resetRoutes(deps))
    .use(snapshotRoutes(deps))
    .use(fixtureRoutes(deps, handle));
}
