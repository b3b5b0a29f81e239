/**
 * One compiled TypeBox check per schema for the whole process.
 *
 * Elysia compiles a route's schemas when the route first answers, again for every app it
 * composes, on copies it makes (coerced params, query and headers; a closed response root), and
 * its normalizer (exact-mirror) compiles every member of every union again. A process that
 * composes many apps from the same route modules compiled the same checks over and over: the
 * toolkit (an app per `startSandbox()`), the fixtures' in-process app, and a test process (an app
 * per `setup()`, ~570 in `npm run test:fast`). That was about 10 ms on each route's first request
 * of each app.
 *
 * `shareCompiledChecks()` makes `TypeCompiler.Compile` remember the compiled function by the
 * schema's content: its JSON with TypeBox's symbol members (Kind, Optional, Readonly, Transform)
 * written in. Each caller still gets its own `TypeCheck` holding its own schema (Elysia sets
 * members on the one it gets, and Decode runs that schema's transforms). A schema with references,
 * or with a function anywhere in it (a custom kind could check with it), is compiled as before.
 */
import { Kind, OptionalKind, ReadonlyKind, TransformKind, type TSchema } from "@sinclair/typebox";
import { TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";

type CheckFunction = (value: unknown) => boolean;
type Compiled = { checkFunc: CheckFunction; code: string };

const SHARED = Symbol.for("paysandbox.sharedCompiledChecks");
const SYMBOLS = [
  ["~kind", Kind],
  ["~optional", OptionalKind],
  ["~readonly", ReadonlyKind],
  ["~transform", TransformKind],
] as const;

let compiledCount = 0;

/** How many checks this process compiled since shareCompiledChecks() (each distinct schema once). */
export function sharedCheckCount(): number {
  return compiledCount;
}

/** The compiled function inside a TypeCheck (TypeBox keeps it private; tests compare them). */
export function checkFunctionOf(check: TypeCheck<TSchema>): CheckFunction {
  return (check as unknown as { checkFunc: CheckFunction }).checkFunc;
}

/** The schema's content as a string, or undefined when it holds a function. */
export function schemaKey(schema: TSchema): string | undefined {
  let holdsFunction = false;
  const key = JSON.stringify(schema, (_name, value: unknown) => {
    if (typeof value === "function") holdsFunction = true;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const symbols = value as Record<symbol, unknown>;
    if (!SYMBOLS.some(([, symbol]) => symbol in symbols)) return value;
    const written: Record<string, unknown> = { ...value };
    for (const [name, symbol] of SYMBOLS) {
      if (symbol in symbols) written[name] = typeof symbols[symbol] === "object" ? "~object" : symbols[symbol];
    }
    return written;
  });
  return holdsFunction ? undefined : key;
}

/** Makes TypeCompiler.Compile reuse its compiled function for a schema of the same content (idempotent). */
export function shareCompiledChecks(): void {
  const compiler = TypeCompiler as { Compile: typeof TypeCompiler.Compile; [SHARED]?: true };
  if (compiler[SHARED]) return;
  const compile = compiler.Compile;
  const byKey = new Map<string, Compiled>();
  compiler.Compile = <T extends TSchema>(schema: T, references: TSchema[] = []): TypeCheck<T> => {
    const key = references.length > 0 ? undefined : schemaKey(schema);
    if (key === undefined) return compile(schema, references);
    let found = byKey.get(key);
    if (!found) {
      const check = compile(schema);
      found = { checkFunc: checkFunctionOf(check), code: check.Code() };
      byKey.set(key, found);
      compiledCount += 1;
    }
    return new TypeCheck(schema, [], found.checkFunc, found.code);
  };
  compiler[SHARED] = true;
}
