/**
 * The OpenAPI document at /openapi/json and its browsable UI at /openapi. The document is
 * generated from the routes' schemas (./document.ts). The UI's script and stylesheet are
 * served from the swagger-ui-dist package (embedded in the compiled binary), not from a CDN: the
 * sandbox works with no network.
 */
import { dirname, resolve } from "node:path";
import { Elysia } from "elysia";
// Imported as files (a path; embedded by `bun build --compile`), read when asked for: a text import
// of the 1.7 MB bundle cost ~30 MB of resident memory from start, for a page most runs never open.
import swaggerCssImport from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerJsImport from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import type { AppDeps } from "../deps";
import { buildDocument } from "./document";

// Absolute from the sources and in the binary; in the toolkit's server bundle, relative to that bundle:
// the script Bun runs (import.meta.dir would be the build machine's folder there).
const swaggerCssPath = resolve(dirname(Bun.main), swaggerCssImport);
const swaggerJsPath = resolve(dirname(Bun.main), swaggerJsImport);

const ASSETS = "/openapi/assets";
const CACHE = "public, max-age=86400";
const TITLE = "paysandbox";
const DESCRIPTION =
  "A local sandbox of a card and ACH payment service. Merchant routes take `Authorization: Bearer <api_key>`; public routes take the web payments token in the path. Every non-2xx answer is the error envelope (`Error`).";

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>${TITLE} — OpenAPI</title>
  <link rel="stylesheet" href="${ASSETS}/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${ASSETS}/swagger-ui-bundle.js"></script>
  <script>
    window.onload = () => { window.ui = SwaggerUIBundle({ url: "/openapi/json", dom_id: "#swagger-ui" }); };
  </script>
</body>
</html>
`;

/** The UI runs "Try it out" with whatever key is typed in: no other site may frame it. */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  "x-content-type-options": "nosniff",
};

export interface OpenApiOptions {
  version: string;
  license: { name: string; identifier: string };
  /** The app's body parser (src/http/pipeline/json.ts): its bodies are documented as application/json. */
  jsonParser: unknown;
}

export function openapiRoutes(deps: AppDeps, options: OpenApiOptions) {
  // Built on first request, when every route is registered; again if the public URL changed.
  let cached: { url: string; body: string } | undefined;
  const app = new Elysia({ name: "openapi" });
  return app
    .get(
      "/openapi/json",
      () => {
        if (cached?.url !== deps.publicUrl) {
          const document = buildDocument(app, {
            jsonParser: options.jsonParser,
            publicUrl: deps.publicUrl,
            documentation: {
              info: { title: TITLE, version: options.version, description: DESCRIPTION, license: options.license },
              components: { securitySchemes: { apiKey: { type: "http", scheme: "bearer" } } },
              security: [{ apiKey: [] }],
            },
          });
          cached = { url: deps.publicUrl, body: JSON.stringify(document) };
        }
        return new Response(cached.body, { headers: { "content-type": "application/json; charset=utf-8" } });
      },
      { detail: { hide: true } },
    )
    .get("/openapi", () => new Response(PAGE, { headers: PAGE_HEADERS }), {
      detail: { hide: true },
    })
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
