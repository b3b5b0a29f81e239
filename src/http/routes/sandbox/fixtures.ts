import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody } from "../../../domain/schemas/records";
import type { FixtureDocument, FixtureSend } from "../../../services/fixtures";
import { loopbackOnly, sandboxMerchant } from "./control";

/** Handles a request as the whole app does, in-process (no socket: a sandbox control sees a local client). */
export type InProcessHandle = (request: Request) => Promise<Response>;

/** A fixture step's request, sent through the app with the merchant's API key. */
export function fixtureSender(handle: InProcessHandle, apiKey: string): FixtureSend {
  return async ({ method, path, body }) => {
    const response = await handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: text };
    }
  };
}

/**
 * `/_sandbox/fixtures`: a document of steps run as the acting merchant (src/services/fixtures.ts),
 * each through the app itself, so every rule of the API applies; all or nothing.
 */
export function fixtureRoutes(deps: AppDeps, handle: InProcessHandle) {
  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] }).use(loopbackOnly(deps)).post(
    "/fixtures",
    async ({ headers, body }) => {
      const merchant = await sandboxMerchant(deps, headers.authorization);
      return deps.services.fixtures.apply(merchant, body as FixtureDocument, fixtureSender(handle, merchant.api_key));
    },
    {
      body: t.Object({
        steps: t.Unknown({ description: "1 to 500 steps", examples: [[]] }),
        once: t.Optional(
          t.Boolean({
            description:
              "Apply only if this merchant has not had this document applied since its last reset (answers the first run's results)",
          }),
        ),
      }),
      response: {
        200: t.Object({
          applied: t.Boolean({ description: "False when `once` found the document applied before" }),
          results: t.Record(t.String(), t.Unknown(), { description: "Each named step's answer, by name" }),
        }),
        401: ErrorBody,
        403: ErrorBody,
        422: ErrorBody,
      },
      detail: {
        summary: "Apply a fixture document to the acting merchant: named API calls and clock steps, all or nothing",
        description:
          "Steps run in order through the API with the merchant's key. A later step refers to an earlier named answer as ${name:field} (dotted paths: ${sale:child_transactions.0.id}; ${merchant:id} and ${merchant:web_payments_token} are always there). A step answering other than 2xx (or its expect_status) stops the document with a 422 naming the step and its fields, and the merchant is put back as it was before the document. See docs/testing.md.",
      },
    },
  );
}
