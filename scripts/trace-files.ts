#!/usr/bin/env bun
/**
 * `npx bun scripts/trace-files.ts [--root DIR] [--json]` — the source files one request passes
 * through, measured at run time: the figures of issue 27 (the pay() and /charge paths before and
 * after, as the list of files each passes through and the number of file changes).
 *
 * Every .ts file under src/ and packages/ of the checkout at --root (default: this one) is loaded
 * through a Bun plugin that puts `globalThis.__traceFile?.("<path>")` at the top of every function,
 * method, accessor and arrow body (found with @swc/core's parser: the repository's TypeScript 7 has
 * no compiler API, and dependency-cruiser reads TypeScript through @swc/core already). The app is
 * the one tests build (setup() of tests/support/app.ts, on SQLite :memory:), so another commit is
 * traced the same way: `--root` at a worktree of it.
 *
 * Two requests, each after one identical unmeasured request (so lazy set-up is not counted):
 * - POST /charge of a saved payment method (tokenized first, not measured);
 * - an invoice pay as payjs and the hosted page make it: POST /webpayment/{token}/invoice/{id}/pay
 *   of an invoice created (not measured) by POST /webpayment/{token}/invoice.
 * Only function entries between the start and the end of the measured request are recorded. For
 * each: the files in order, consecutive entries of one file collapsed (`file ×entries`), the file
 * changes (transitions between two different files) and the distinct files.
 */
import { parseSync } from "@swc/core";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { root: { type: "string" }, json: { type: "boolean", default: false } },
});
const ROOT = resolve(values.root ?? join(import.meta.dir, ".."));

// ---- Instrumentation -----------------------------------------------------------------------------

interface Span {
  start: number;
  end: number;
}
interface Node {
  type?: string;
  span?: Span;
  [key: string]: unknown;
}
/** Replace bytes [start, end) of a module's UTF-8 text with `text` (start = end: an insertion). */
interface Edit {
  start: number;
  end: number;
  text: string;
}

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null;
/** A function's block body (swc names an arrow's `FunctionBody`, a function's `BlockStatement`). */
const isBlock = (value: unknown): value is Node & { span: Span } =>
  isNode(value) && (value.type === "BlockStatement" || value.type === "FunctionBody");

/**
 * `import * as x from "./y.ts" with { type: "text" }` (how older commits embed payjs's sources),
 * as the text it imports: a plugin is not told an import's attributes, so it would hand the
 * instrumented module instead (and run browser code on the server).
 */
function textImport(node: Node, dir: string): string | undefined {
  const source = node.source as { value?: string } | undefined;
  const local = (node.specifiers as { type: string; local: { value: string } }[] | undefined)?.[0];
  if (node.type !== "ImportDeclaration" || !source?.value || !local) return undefined;
  if (!/\.tsx?$/.test(source.value) || !JSON.stringify(node.with ?? null).includes('"value":"text"')) return undefined;
  const text = JSON.stringify(readFileSync(resolve(dir, source.value), "utf8"));
  return local.type === "ImportNamespaceSpecifier"
    ? `const ${local.local.value} = { default: ${text} };`
    : `const ${local.local.value} = ${text};`;
}

/** The edits that put the call at the top of every function of a module (byte offsets; swc counts from 1). */
function edits(source: Buffer, path: string, file: string): Edit[] {
  const module = parseSync(source.toString("utf8"), {
    syntax: "typescript",
    tsx: file.endsWith(".tsx"),
    decorators: true,
  });
  const call = `globalThis.__traceFile?.(${JSON.stringify(file)});`;
  const found: Edit[] = [];
  const insert = (at: number, text: string) => found.push({ start: at, end: at, text });
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isNode(node)) return;
    const inlined = textImport(node, dirname(path));
    if (inlined !== undefined && node.span) {
      found.push({ start: node.span.start - 1, end: node.span.end - 1, text: inlined });
      return;
    }
    const body = node.body;
    const isFunction =
      Array.isArray(node.params) ||
      node.type === "GetterProperty" ||
      node.type === "SetterProperty" ||
      node.type === "Constructor";
    if (isFunction && isBlock(body)) {
      const at = body.span.start - 1;
      if (source[at] !== "{".charCodeAt(0)) throw new Error(`${file}: no "{" at byte ${at} (swc span)`);
      insert(at + 1, call);
    } else if (node.type === "ArrowFunctionExpression" && isNode(body) && body.span) {
      // An expression body: `(call, expression)`.
      insert(body.span.start - 1, `(${call.slice(0, -1)}, `);
      insert(body.span.end - 1, ")");
    }
    for (const [key, value] of Object.entries(node)) if (key !== "span" && isNode(value)) visit(value);
  };
  visit(module.body);
  return found;
}

/** The module's text with a call at the top of every function. */
function instrument(source: Buffer, path: string, file: string): string {
  // Edits never overlap; two at one place (`() => () => x` ends in two ")") are alike.
  const sorted = edits(source, path, file).sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let from = 0;
  for (const { start, end, text } of sorted) {
    parts.push(source.subarray(from, start), Buffer.from(text));
    from = end;
  }
  parts.push(source.subarray(from));
  return Buffer.concat(parts).toString("utf8");
}

const escaped = ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
Bun.plugin({
  name: "trace-files",
  setup(build) {
    build.onLoad(
      { filter: new RegExp(`^${escaped}/(src|packages)/(?!.*/node_modules/).*(?<!\\.d)\\.tsx?$`) },
      async (args) => {
        const source = Buffer.from(await Bun.file(args.path).arrayBuffer());
        const contents = instrument(source, args.path, relative(ROOT, args.path));
        return { contents, loader: args.path.endsWith(".tsx") ? "tsx" : "ts" };
      },
    );
  },
});

// ---- Recording -----------------------------------------------------------------------------------

let recording: string[] | undefined;
(globalThis as { __traceFile?: (file: string) => void }).__traceFile = (file) => recording?.push(file);

interface Run {
  files: string[];
  status: number;
}

async function record(request: () => Promise<{ status: number }>): Promise<Run> {
  recording = [];
  try {
    const { status } = await request();
    // Elysia runs onAfterResponse hooks (the request log) after the answer, in a later task.
    await Bun.sleep(0);
    return { files: recording, status };
  } finally {
    recording = undefined;
  }
}

interface Report {
  request: string;
  status: number;
  entries: number;
  fileChanges: number;
  distinctFiles: number;
  path: { file: string; entries: number }[];
}

function summarize(request: string, run: Run): Report {
  const path: { file: string; entries: number }[] = [];
  for (const file of run.files) {
    const last = path.at(-1);
    if (last?.file === file) last.entries++;
    else path.push({ file, entries: 1 });
  }
  return {
    request,
    status: run.status,
    entries: run.files.length,
    fileChanges: Math.max(0, path.length - 1),
    distinctFiles: new Set(run.files).size,
    path,
  };
}

// ---- The requests --------------------------------------------------------------------------------

interface CallResult {
  status: number;
  body: { id: string } & Record<string, unknown>;
}
interface TestContext {
  token: string;
  call(method: string, path: string, options?: { body?: unknown; auth?: false }): Promise<CallResult>;
}
/** tests/support/app.ts, the same in every commit traced so far. */
interface Support {
  setup(): Promise<TestContext>;
  tokenize(ctx: TestContext): Promise<{ id: string }>;
}

const support = (await import(join(ROOT, "tests/support/app.ts"))) as Support;

const ok = async (what: string, result: Promise<CallResult>): Promise<CallResult> => {
  const res = await result;
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

async function traceCharge(): Promise<Report> {
  const ctx = await support.setup();
  const pm = await support.tokenize(ctx);
  const body = { payment_method_id: pm.id, total: 10.5, meta: { tax: 0.5, subtotal: 10 } };
  const charge = () => ok("POST /charge", ctx.call("POST", "/charge", { body }));
  await charge();
  return summarize("POST /charge", await record(charge));
}

/** The fields payjs's pay() sends with a new web-payment invoice (tests/http/invoices-public.test.ts). */
const INVOICE = {
  total: 25.5,
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
  address_zip: "32822",
  meta: { reference: "ORD-1", subtotal: 24, tax: 1.5, lineItems: [{ item: "Gear", quantity: 2, price: 12 }] },
};

async function traceInvoicePay(): Promise<Report> {
  const ctx = await support.setup();
  const pm = await support.tokenize(ctx);
  const base = `/webpayment/${ctx.token}/invoice`;
  const create = async () =>
    (await ok("create", ctx.call("POST", base, { body: { ...INVOICE, payment_method_id: pm.id }, auth: false }))).body
      .id;
  const pay = (id: string) => () =>
    ok("pay", ctx.call("POST", `${base}/${id}/pay`, { body: { payment_method_id: pm.id }, auth: false }));
  await pay(await create())();
  return summarize("POST /webpayment/{token}/invoice/{id}/pay", await record(pay(await create())));
}

const reports = [await traceCharge(), await traceInvoicePay()];
if (values.json) console.log(JSON.stringify({ root: ROOT, reports }, null, 2));
else {
  for (const report of reports) {
    console.log(
      `${report.request} (${report.status}): ${report.fileChanges} file changes, ` +
        `${report.distinctFiles} distinct files, ${report.entries} function entries`,
    );
    for (const step of report.path) console.log(`  ${step.file} ×${step.entries}`);
    console.log("");
  }
}
