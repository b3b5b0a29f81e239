/**
 * The mobile SDK as a package outside this repository: `npm pack` in mobile/ builds it, the
 * tarball is installed into a new project (from the file, no registry), and the project's code —
 * plain Node 20 with `import` and with `require`, TypeScript with nodenext resolution, a bundler —
 * uses it against a real sandbox on loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runToExit } from "../support/process";
import { serve, setup, type TestContext } from "../support/app";
import { docBlock } from "../docs/blocks";
import { runInNamespace } from "../docs/shell";

const PACKAGE_DIR = join(ROOT, "packages", "mobile");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let workDir: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };

/** The app's code, as an integrator writes it: tokenize in the app, charge from the backend. */
const FLOW = (sdk: string) => `
  const { CreditCard, PaymentApi, PaymentConfiguration } = ${sdk};
  async function main() {
    PaymentConfiguration.shared.webPaymentsToken = process.env.TOKEN;
    PaymentConfiguration.shared.baseUrl = process.env.BASE_URL;
    const tokenized = await new PaymentApi().tokenize(CreditCard.testCreditCard());
    if (!tokenized.ok) throw new Error("tokenize: " + tokenized.error.code + " " + tokenized.error.message);
    const res = await fetch(process.env.BASE_URL + "/charge", {
      method: "POST",
      headers: { authorization: "Bearer " + process.env.API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ payment_method_id: tokenized.paymentMethod.id, total: 12.34 }),
    });
    const failing = await new PaymentApi().tokenize(CreditCard.failingTestCreditCard());
    console.log(JSON.stringify({
      node: process.version,
      paymentMethod: tokenized.paymentMethod,
      status: res.status,
      transaction: await res.json(),
      failing: failing.error,
    }));
  }
`;

async function runNode(file: string) {
  const env = { TOKEN: ctx.token, API_KEY: ctx.apiKey, BASE_URL: sandbox.url };
  return runToExit(["node", file], { cwd: app, env, timeoutMs: 30_000 });
}

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  workDir = mkdtempSync(join(tmpdir(), "paysandbox-mobile-package-"));
  // npm pack runs the package's prepack script: the build.
  const pack = await runToExit(["npm", "pack", "--json", "--pack-destination", workDir], {
    cwd: PACKAGE_DIR,
    timeoutMs: 120_000,
  });
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  // The build's own output comes first; npm's JSON report is the rest.
  packed = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)))[0];
  app = join(workDir, "app");
  await Bun.write(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const install = await runToExit(
    ["npm", "install", "--offline", "--no-audit", "--no-fund", join(workDir, packed.filename)],
    { cwd: app, timeoutMs: 60_000 },
  );
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
}, 200_000);

afterAll(async () => {
  await sandbox?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe("the packed mobile SDK", () => {
  test("ships built JavaScript, declarations and the license, and none of the repository's sources", () => {
    const files = packed.files.map((file) => file.path).sort();
    expect(files).toEqual([
      "README.md",
      "dist/LICENSE",
      "dist/index.cjs",
      "dist/index.d.cts",
      "dist/index.d.ts",
      "dist/index.js",
      "package.json",
    ]);
    const installed = join(app, "node_modules", "paysandbox-mobile");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(manifest.name).toBe("paysandbox-mobile");
    expect(manifest.version).toBe(root.version);
    expect(manifest.dependencies).toBeUndefined();
    // The shared rules from payjs/ are inside the bundle, not imported from a path that is not there.
    for (const file of ["index.js", "index.cjs", "index.d.ts"]) {
      const text = readFileSync(join(installed, "dist", file), "utf8");
      expect(text).not.toMatch(/^\s*(import|export)\s.*\sfrom\s/m);
      expect(text).not.toMatch(/\brequire\(/);
    }
    expect(readFileSync(join(installed, "dist", "index.js"), "utf8")).toContain("The card number is invalid");
  });

  test("plain Node tokenizes and the backend charges, with import (ESM)", async () => {
    writeFileSync(join(app, "esm.mjs"), `import * as sdk from "paysandbox-mobile";\n${FLOW("sdk")}\nawait main();\n`);
    const run = await runNode("esm.mjs");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.node).toMatch(/^v(2\d|[3-9]\d)\./);
    expect(result.paymentMethod.card_last_four).toBe("1111");
    expect(result.status).toBe(200);
    expect(result.transaction.success).toBe(true);
    expect(result.transaction.total).toBe(12.34);
    expect(result.transaction.payment_method_id).toBe(result.paymentMethod.id);
    expect(result.failing.code).toBe("validation_error");
    expect(result.failing.fields.cardNumber.length).toBe(1);
  });

  test("plain Node tokenizes and the backend charges, with require (CommonJS)", async () => {
    writeFileSync(
      join(app, "cjs.cjs"),
      `${FLOW('require("paysandbox-mobile")')}\nmain().catch((e) => { console.error(e); process.exit(1); });\n`,
    );
    const run = await runNode("cjs.cjs");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.transaction.success).toBe(true);
    expect(result.paymentMethod.card_type).toBe("visa");
  });

  test("TypeScript (nodenext) finds the declarations for import and require, and rejects misuse", async () => {
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "ES2022",
      lib: ["ES2022", "DOM"],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    };
    writeFileSync(
      join(app, "typed.mts"),
      [
        'import { CreditCard, PaymentApi, type PaymentMethod, type TokenizeResponse } from "paysandbox-mobile";',
        'const api = new PaymentApi({ webPaymentsToken: "sandbox_web_payments_token" });',
        "const response: TokenizeResponse = await api.tokenize(CreditCard.testCreditCard());",
        "const id: string | undefined = response.ok ? (response.paymentMethod satisfies PaymentMethod).id : undefined;",
        "export { id };",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(app, "typed.cts"),
      [
        'import { BankAccount, PaymentApi } from "paysandbox-mobile";',
        "export const pending = new PaymentApi().tokenize(BankAccount.testBankAccount());",
        "",
      ].join("\n"),
    );
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["typed.mts", "typed.cts"] }));
    const good = await runToExit([TSC, "-p", "tsconfig.json", "--pretty", "false"], { cwd: app, timeoutMs: 60_000 });
    expect(good.stdout).toBe("");
    expect(good.code).toBe(0);

    writeFileSync(
      join(app, "wrong.mts"),
      'import { CreditCard } from "paysandbox-mobile";\nnew CreditCard({ cardNumber: 4111111111111111 });\n',
    );
    writeFileSync(join(app, "tsconfig.wrong.json"), JSON.stringify({ compilerOptions, files: ["wrong.mts"] }));
    const wrong = await runToExit([TSC, "-p", "tsconfig.wrong.json", "--pretty", "false"], {
      cwd: app,
      timeoutMs: 60_000,
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(
      /^wrong\.mts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
    );
  }, 70_000);

  test("a bundler resolves the package's import entry", async () => {
    writeFileSync(
      join(app, "entry.js"),
      'import { PaymentApi } from "paysandbox-mobile";\nglobalThis.api = PaymentApi;\n',
    );
    const built = await Bun.build({ entrypoints: [join(app, "entry.js")], target: "browser", format: "esm" });
    expect(built.success).toBe(true);
    const text = await built.outputs[0]!.text();
    expect(text).toContain("/webpayment/");
    expect(text).not.toContain("module.exports");
  });

  test("docs/mobile.md's install and app.mjs, as printed: the app beside the checkout installs the tarball and tokenizes", async () => {
    const home = join(workDir, "docs");
    mkdirSync(join(home, "paysandbox"), { recursive: true });
    copyFileSync(join(workDir, packed.filename), join(home, "paysandbox", "paysandbox-mobile-0.1.0.tgz"));
    const myApp = join(home, "my-app");
    mkdirSync(myApp);
    writeFileSync(join(myApp, "package.json"), JSON.stringify({ name: "my-app", private: true }));
    const install = await runInNamespace([docBlock("mobile-install").code], {
      cwd: myApp,
      env: { npm_config_offline: "true", npm_config_fund: "false", npm_config_audit: "false" },
      timeoutMs: 60_000,
    });
    expect(install.runs[0]!.code, install.log).toBe(0);
    expect(install.log.split("\n").filter((line) => /warn|ERR!/i.test(line))).toEqual([]);

    const code = docBlock("mobile-app").code;
    expect(code).toStartWith("// app.mjs — node app.mjs\n");
    writeFileSync(join(myApp, "app.mjs"), code);
    const run = await runInNamespace(["node app.mjs"], { cwd: myApp, sandbox: true, timeoutMs: 60_000 });
    expect(run.runs[0]!.code, run.log).toBe(0);
    expect(run.runs[0]!.output).toMatch(/^[0-9a-f-]{36}\n$/);
  }, 130_000);
});
