/**
 * A rule the import graph cannot state (.dependency-cruiser.cjs holds the others; nothing in
 * src/services importing from src/http is its layer-services rule, tested in import-rules.test.ts):
 * every service is built once, in the composition root (src/services/index.ts, and src/entry, which
 * builds the clock, the outbox and the workers). A route file that says `new SomeService(...)` is a
 * second composition root: its service is another instance, with its own caches and listeners.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const COMPOSITION_ROOT = /^src\/services\/index\.ts$|^src\/entry\//;

/**
 * The `new X(` of a service class outside the composition root, as "file: X". The service classes
 * are the ones src/services exports, and any class named …Service. A module may build its own
 * classes (a factory that picks one of two).
 */
export function constructionsOutsideRoot(files: Record<string, string>): string[] {
  const serviceClasses = new Set<string>();
  for (const [path, text] of Object.entries(files)) {
    if (!path.startsWith("src/services/")) continue;
    for (const match of text.matchAll(/^export class (\w+)/gm)) serviceClasses.add(match[1]!);
  }
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (COMPOSITION_ROOT.test(path)) continue;
    const own = new Set([...text.matchAll(/^(?:export )?class (\w+)/gm)].map((match) => match[1]!));
    for (const match of text.matchAll(/\bnew\s+(\w+)\s*\(/g)) {
      const name = match[1]!;
      if (own.has(name)) continue;
      if (serviceClasses.has(name) || /Service$/.test(name)) found.push(`${path}: ${name}`);
    }
  }
  return found;
}

function sourceTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of new Glob("src/**/*.ts").scanSync({ cwd: ROOT })) {
    files[path] = readFileSync(join(ROOT, path), "utf8");
  }
  return files;
}

describe("services are built once", () => {
  test("no module outside the composition root constructs a service", () => {
    const files = sourceTree();
    // The scan sees the tree: the composition root builds the invoice service.
    expect(files["src/services/index.ts"]).toContain("new InvoiceService(");
    expect(constructionsOutsideRoot(files)).toEqual([]);
  });

  test("a route that builds its own service is caught, the composition root is not", () => {
    const found = constructionsOutsideRoot({
      "src/services/mail/receipts.ts": "export class ReceiptService {}\n",
      "src/services/sandbox.ts": "export class SandboxControl {}\n",
      "src/services/rate-limits.ts": "export class RateLimiter {}\nexport const limiter = () => new RateLimiter();\n",
      "src/services/index.ts": "const receipts = new ReceiptService(deps);\n",
      "src/entry/deps.ts": "const control = new SandboxControl(db);\n",
      "src/http/routes/receipts.ts": "const receipts = new ReceiptService(deps);\n",
      "src/http/routes/sandbox/control.ts": "controls.set(deps, new SandboxControl(db, services, clock));\n",
      "src/http/dashboard/routes/kit.ts": "const service = new DashboardService(db);\n",
      "src/http/limits.ts": "const url = new URL(request.url);\n",
    });
    expect(found).toEqual([
      "src/http/routes/receipts.ts: ReceiptService",
      "src/http/routes/sandbox/control.ts: SandboxControl",
      "src/http/dashboard/routes/kit.ts: DashboardService",
    ]);
  });
});
