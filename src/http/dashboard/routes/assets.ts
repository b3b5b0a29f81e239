/** The dashboard's stylesheet and client scripts (built from their TypeScript sources by src/http/assets). */
import { Elysia } from "elysia";
import { browserAssets, type BrowserFile } from "../../assets/index";
import type { AppDeps } from "../../deps";
import { loopbackOnly } from "../../routes/sandbox";
import { DASHBOARD_CSS } from "../style";

/** `/dashboard/assets/*`: the stylesheet and the client scripts every page loads. */
export function assetRoutes(deps: AppDeps) {
  const assets = browserAssets({ dev: deps.config.dev });
  const script = async (path: BrowserFile) => {
    const { body, contentType } = await assets.get(path);
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-cache" } });
  };
  return new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
    .use(loopbackOnly(deps))
    .get(
      "/dashboard/assets/dashboard.css",
      () =>
        new Response(DASHBOARD_CSS, {
          headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" },
        }),
    )
    .get("/dashboard/assets/dashboard.js", () => script("dashboard.js"))
    .get("/dashboard/assets/try.js", () => script("try.js"));
}
