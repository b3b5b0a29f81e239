/**
 * The OpenAPI document and its browsable UI at /openapi. The UI's script and stylesheet are
 * served from the swagger-ui-dist package (embedded in the compiled binary), not from a CDN:
 * the sandbox works with no network.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// Imported as files (a path; embedded by `bun build --compile`), read when asked for: a text import
// of the 1.7 MB bundle cost ~30 MB of resident memory from start, for a page most runs never open.
import swaggerCssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerJsPath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };

const ASSETS = "/openapi/assets";
const CACHE = "public, max-age=86400";

export function openapiRoutes(version: string) {
  return new Elysia()
    .use(
      openapi({
        path: "/openapi",
        provider: "swagger-ui",
        swagger: { cdn: `${ASSETS}/swagger-ui-bundle.js`, theme: `${ASSETS}/swagger-ui.css` },
        documentation: {
          info: {
            title: "paysandbox",
            version,
            description:
              "A local sandbox of a card and ACH payment service. Merchant routes take `Authorization: Bearer <api_key>`; public routes take the web payments token in the path.",
          },
          components: { securitySchemes: { apiKey: { type: "http", scheme: "bearer" } } },
          security: [{ apiKey: [] }],
        },
      }),
    )
    .get(
      `${ASSETS}/swagger-ui-bundle.js`,
      () =>
        new Response(Bun.file(swaggerJsPath), {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": CACHE },
        }),
      { detail: { hide: true } },
    )
    .get(
      `${ASSETS}/swagger-ui.css`,
      () =>
        new Response(Bun.file(swaggerCssPath), {
          headers: { "content-type": "text/css; charset=utf-8", "cache-control": CACHE },
        }),
      { detail: { hide: true } },
    );
}
