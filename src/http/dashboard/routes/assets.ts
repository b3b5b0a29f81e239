/** The dashboard's stylesheet and client scripts (the scripts transpiled once from their TypeScript sources). */
import { Elysia } from "elysia";
import { readSourceFile } from "../../../lib/embedded";
import type { AppDeps } from "../../deps";
import { loopbackOnly } from "../../routes/sandbox";
import { DASHBOARD_CSS } from "../style";

/** Client scripts, transpiled once from their TypeScript sources (read from disk or the binary). */
const scripts = new Map<string, string>();
function clientScript(name: "client" | "try"): string {
  let code = scripts.get(name);
  if (code === undefined) {
    const source = readSourceFile(`src/http/dashboard/browser/${name}.ts`);
    code = new Bun.Transpiler({ loader: "ts", target: "browser" }).transformSync(source);
    scripts.set(name, code);
  }
  return code;
}

/** `/dashboard/assets/*`: the stylesheet and the client scripts every page loads. */
export function assetRoutes(deps: AppDeps) {
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(loopbackOnly(deps))
    .get(
      "/dashboard/assets/dashboard.css",
      () =>
        new Response(DASHBOARD_CSS, {
          headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" },
        }),
    )
    .get(
      "/dashboard/assets/dashboard.js",
      () =>
        new Response(clientScript("client"), {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
        }),
    )
    .get(
      "/dashboard/assets/try.js",
      () =>
        new Response(clientScript("try"), {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
        }),
    );
}
