import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { selfRoutes } from "./self";
import { teamRoutes } from "./team";
import { reportRoutes } from "./reports";

/**
 * The merchant's account: GET /self, the team operations and the reports, as one plugin (the app's
 * chain of plugins is kept short: each link deepens its type, and TypeScript stops at a depth).
 */
export function accountRoutes(deps: AppDeps) {
  return new Elysia().use(selfRoutes(deps)).use(teamRoutes(deps)).use(reportRoutes(deps));
}
