/**
 * The OpenAPI document as third-party tools see it: fetched over HTTP from a real sandbox, linted
 * by Redocly, turned into types by openapi-typescript, and used by an openapi-fetch client
 * (tests/openapi-client/client.ts) that must type-check with tsc and then tokenize and charge for
 * real. A wrong request body must not type-check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runToExit } from "../support/process";
import { serve, setup, type TestContext } from "../support/app";

const PROJECT = join(ROOT, "tests", "openapi-client");
const GENERATED = join(PROJECT, "generated");
const BIN = join(ROOT, "node_modules", ".bin");
/** Redocly must not phone home (the tests run on loopback only). */
const QUIET_REDOCLY = { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let document: any;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  mkdirSync(GENERATED, { recursive: true });
  const res = await fetch(`${sandbox.url}/openapi/json`);
  expect(res.status).toBe(200);
  document = await res.json();
  writeFileSync(join(GENERATED, "openapi.json"), JSON.stringify(document, null, 2));
});

afterAll(async () => {
  await sandbox.stop();
});

describe("the OpenAPI document", () => {
  test("names this sandbox as its server, states the license and names the shared shapes", () => {
    expect(document.servers).toEqual([{ url: sandbox.url, description: "This sandbox" }]);
    expect(document.info.license).toEqual({ name: "MIT License", identifier: "MIT" });
    const schemas = Object.keys(document.components.schemas);
    for (const name of ["Error", "Transaction", "Invoice", "Customer", "PaymentMethod", "Webhook", "Deposit"]) {
      expect(schemas).toContain(name);
    }
    expect(schemas).toContain("TransactionPage");
    const charge = document.paths["/charge"].post;
    expect(charge.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ChargeRequest",
    });
    expect(charge.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/Transaction");
    expect(charge.responses["429"].headers["Retry-After"].schema.type).toBe("integer");
    expect(document.paths["/_sandbox/reset"].post.responses["429"]).toBeUndefined();
    expect(charge.responses["402"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/PaymentDeclined",
    );
  });

  test("every request body has a JSON (or, for an upload, multipart) schema and every 4xx answer is the error envelope", () => {
    const problems: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const bodySchema =
          operation.requestBody?.content?.["application/json"]?.schema ??
          operation.requestBody?.content?.["multipart/form-data"]?.schema;
        if (operation.requestBody && !bodySchema) {
          problems.push(`${where}: request body without a JSON or multipart/form-data schema`);
        }
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          const schema = response.content?.["application/json"]?.schema ?? response.content?.["text/html"]?.schema;
          if (!schema) problems.push(`${where} ${status}: no schema`);
          if (/^Response for status/.test(response.description)) problems.push(`${where} ${status}: no description`);
          const envelope = ["Error", "PaymentDeclined", "InvoicePaymentDeclined"].map(
            (n) => `#/components/schemas/${n}`,
          );
          // The hosted pages answer people: their 404 is an HTML page.
          const page = response.content?.["text/html"];
          if (/^4/.test(status) && !page && !envelope.includes(schema?.$ref)) {
            problems.push(`${where} ${status}: ${schema?.$ref}`);
          }
        }
        if (operation.requestBody) {
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["400", "413", "422"]));
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("Redocly's recommended rules find no problem in it", async () => {
    const lint = await runToExit(
      [
        join(BIN, "redocly"),
        "lint",
        join(GENERATED, "openapi.json"),
        "--config",
        join(ROOT, "redocly.yaml"),
        "--format=json",
      ],
      { env: QUIET_REDOCLY, timeoutMs: 60_000 },
    );
    const report = JSON.parse(lint.stdout);
    expect(report.problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(lint.code).toBe(0);
  }, 70_000);
});

describe("a client generated with openapi-typescript and openapi-fetch", () => {
  beforeAll(async () => {
    const generate = await runToExit(
      [
        join(PROJECT, "node_modules", ".bin", "openapi-typescript"),
        join(GENERATED, "openapi.json"),
        "-o",
        join(GENERATED, "schema.ts"),
      ],
      { timeoutMs: 60_000 },
    );
    if (generate.code !== 0) throw new Error(`openapi-typescript failed:\n${generate.stderr}`);
  }, 70_000);

  test("type-checks with tsc: bodies and answers are typed from the document", async () => {
    const check = await runToExit([join(BIN, "tsc"), "-p", join(PROJECT, "tsconfig.json"), "--pretty", "false"], {
      timeoutMs: 60_000,
    });
    expect(check.stdout).toBe("");
    expect(check.code).toBe(0);
  }, 70_000);

  test("a wrong request body fails to type-check, at the wrong member", async () => {
    writeFileSync(
      join(GENERATED, "wrong-body.ts"),
      [
        'import createClient from "openapi-fetch";',
        'import type { paths } from "./schema";',
        "",
        'const backend = createClient<paths>({ baseUrl: "http://localhost:7290" });',
        'await backend.POST("/charge", { body: { payment_method_id: "pm", total: { amount: 10.5 } } });',
        'await backend.POST("/charge", { body: { total: 10.5 } });',
        "export {};",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(GENERATED, "tsconfig.wrong.json"),
      JSON.stringify({ extends: "../tsconfig.json", include: ["wrong-body.ts", "schema.ts"] }),
    );
    const check = await runToExit(
      [join(BIN, "tsc"), "-p", join(GENERATED, "tsconfig.wrong.json"), "--pretty", "false"],
      {
        cwd: PROJECT,
        timeoutMs: 60_000,
      },
    );
    expect(check.code).not.toBe(0);
    // One line per error; indented lines elaborate on the one above.
    const errors = check.stdout.split("\n").filter((line) => /^\S/.test(line));
    // total as an object: reported at `total` on line 5; no payment_method_id: reported on line 6.
    expect(errors[0]).toMatch(
      /^generated\/wrong-body\.ts\(5,\d+\): error TS2322: .*'\{ amount: number; \}'.*'string \| number'/,
    );
    expect(
      errors.some((line) => /^generated\/wrong-body\.ts\(6,\d+\): error TS\d+: .*payment_method_id/.test(line)),
    ).toBe(true);
    expect(errors.every((line) => line.startsWith("generated/wrong-body.ts("))).toBe(true);
  }, 70_000);

  test("tokenizes a card and charges it against the running sandbox", async () => {
    const client = join(PROJECT, "client.ts");
    const { tokenizeAndCharge } = await import(client);
    const sandboxOf = { baseUrl: sandbox.url, webPaymentsToken: ctx.token, apiKey: ctx.apiKey };
    const { paymentMethod, transaction } = await tokenizeAndCharge(sandboxOf, { total: 10.5, reference: "A-1" });
    expect(paymentMethod.card_last_four).toBe("1111");
    expect(transaction.success).toBe(true);
    expect(transaction.payment_method_id).toBe(paymentMethod.id);
    expect(transaction.total).toBe(10.5);
    expect(transaction.meta).toEqual({ reference: "A-1" });
    const stored = await ctx.call("GET", `/transaction/${transaction.id}`);
    expect(stored.body.total).toBe(10.5);
  });
});
