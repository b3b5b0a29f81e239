import { Elysia, t } from "elysia";
import { tokenAuth } from "../auth";
import type { AppDeps } from "../deps";
import { settingsOf } from "../../services/merchants";
import { ErrorBody } from "../../domain/schemas/records";
import { browserAssets, type Asset } from "../assets/index";

/**
 * The frame pages may be embedded by any page (frame-ancestors *) but run only the sandbox's
 * own script and talk only to the sandbox.
 */
export const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "frame-ancestors *",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/**
 * Serves an asset with its ETag (304 when the client has it) and gzip when the client accepts
 * it. The gzipped representation has its own ETag ("…-gzip"), as two encodings of one file are
 * two different byte sequences.
 */
function serveAsset(request: Request, asset: Asset, extraHeaders: Record<string, string> = {}): Response {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gzip"` : asset.etag;
  const headers: Record<string, string> = {
    "content-type": asset.contentType,
    etag,
    // Always revalidate: the ETag makes that a 304 without a body.
    "cache-control": "no-cache",
    vary: "Accept-Encoding",
    ...extraHeaders,
  };
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (gzip) return new Response(asset.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  return new Response(asset.body, { headers });
}

const AssetResponse = (description: string) => t.String({ description });
const FRAME_RESPONSE = { 200: AssetResponse("The frame page (text/html)"), 304: t.Void() };

/**
 * The browser library: /payjs.js (built from packages/payjs by src/http/assets), its typings, the
 * card frame pages and their script, and the merchant settings pay() validates against.
 */
export function payjsRoutes(deps: AppDeps) {
  const assets = browserAssets({ dev: deps.config.dev });
  const frameHeaders = { "content-security-policy": FRAME_CSP, "x-content-type-options": "nosniff" };
  return new Elysia({ tags: ["Browser library"] })
    .get("/payjs.js", async ({ request }) => serveAsset(request, await assets.get("payjs.js")), {
      response: { 200: AssetResponse("JavaScript defining window.PayJs"), 304: t.Void() },
      detail: {
        summary: "The browser library",
        description:
          'Built from packages/payjs once (when the binary is compiled; from a checkout, on first request) and kept in memory (ETag, gzip). Include it with `<script src="{public_url}/payjs.js"></script>`; it finds the sandbox from its own URL.',
      },
    })
    .get("/payjs.d.ts", async ({ request }) => serveAsset(request, await assets.get("payjs.d.ts")), {
      response: { 200: AssetResponse("TypeScript declarations of window.PayJs"), 304: t.Void() },
      detail: { summary: "Typings of the browser library (PayJs, events, pay() details, the invoice, PayJsError)" },
    })
    .get("/payjs/frame.js", async ({ request }) => serveAsset(request, await assets.get("frame.js"), frameHeaders), {
      response: { 200: AssetResponse("The card frames' script"), 304: t.Void() },
      detail: { summary: "Script of the card frames", hide: true },
    })
    .get(
      "/payjs/frames/number.html",
      async ({ request }) => serveAsset(request, await assets.get("frame.html"), frameHeaders),
      {
        response: FRAME_RESPONSE,
        detail: { summary: "The card number frame (inserted by showCardForm())", hide: true },
      },
    )
    .get(
      "/payjs/frames/cvv.html",
      async ({ request }) => serveAsset(request, await assets.get("frame.html"), frameHeaders),
      {
        response: FRAME_RESPONSE,
        detail: { summary: "The CVV frame (inserted by showCardForm())", hide: true },
      },
    )
    .group("/payjs/config/:token", (app) =>
      app.use(tokenAuth(deps)).get(
        "",
        ({ merchant }) => {
          const { avs_zip, avs_street } = settingsOf(merchant);
          return { avs_zip, avs_street };
        },
        {
          params: t.Object({ token: t.String({ description: "The merchant's web payments token" }) }),
          response: {
            200: t.Object({
              avs_zip: t.Boolean({ description: "address_zip is required" }),
              avs_street: t.Boolean({ description: "address_1 is required" }),
            }),
            401: ErrorBody,
          },
          detail: {
            summary: "What pay() validates against: the merchant's address verification settings",
            description: "Public (web payments token). showCardForm() also uses it to reject an unknown token.",
          },
        },
      ),
    );
}
