/**
 * Declarative fixtures (POST /_sandbox/fixtures, --fixtures FILE): a document of steps, each an API
 * call or a clock advance, run in order as the merchant itself would make them (the HTTP layer
 * hands in `send`, which goes through the whole app with the merchant's API key, so every rule of
 * the API applies). A later step refers to an earlier named result as `${name:field}` (a dotted
 * path: `${sale:child_transactions.0.id}`); `${merchant:id}` and `${merchant:web_payments_token}`
 * are always there. A step that fails stops the document with a 422 naming the step and the field,
 * and nothing of it is kept: the merchant is snapshotted first and restored on failure.
 *
 * Verbs: `apply(merchant, document, send)`.
 */
import type { Database } from "../storage/database";
import * as repo from "../storage/repositories/fixtures";
import { ApiError } from "../domain/errors";
import { randomToken, sha256Hex } from "../lib/crypto";
import type { SandboxClock } from "./clock";
import type { SnapshotService } from "./snapshots";

/** An API call of a fixture document. */
export interface CallStep {
  name?: string;
  method: string;
  path: string;
  body?: unknown;
  /** The status the call must answer (default: any 2xx), e.g. 402 for a declined card. */
  expect_status?: number;
}

/** A clock step: its `advance` is the body of POST /_sandbox/clock/advance (`{"seconds": 86400}`). */
export interface ClockStep {
  name?: string;
  clock: { advance: unknown };
}

export type FixtureStep = CallStep | ClockStep;

export interface FixtureDocument {
  steps: unknown[];
  /** Apply it only if this merchant has not had this very document applied (since its last reset). */
  once?: boolean;
}

/** What a step sends: the HTTP layer runs it through the app as the merchant. */
export type FixtureSend = (request: {
  method: string;
  path: string;
  body?: unknown;
}) => Promise<{ status: number; body: unknown }>;

export interface FixtureResult {
  /** False when `once` found the document applied before: nothing ran, the results are the first run's. */
  applied: boolean;
  /** Each named step's answer, by name. */
  results: Record<string, unknown>;
}

/** The most steps one document may hold. */
export const MAX_FIXTURE_STEPS = 500;

const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const REFERENCE = /\$\{([^}:]*):([^}]*)\}/g;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

export const FIXTURE_MESSAGES = {
  steps: `steps must be an array of 1 to ${MAX_FIXTURE_STEPS} steps.`,
  shape:
    'A step is either {"name"?, "method", "path", "body"?, "expect_status"?} or {"name"?, "clock": {"advance": {"seconds": N}}}.',
  name: "A step's name is 1 to 64 letters, digits, '_' or '-', starting with a letter or '_'.",
  reserved: 'The name "merchant" is the acting merchant\'s (${merchant:id}, ${merchant:web_payments_token}).',
  duplicate: (name: string) => `Another step is already named "${name}".`,
  method: "method must be GET, POST, PUT, PATCH or DELETE.",
  path: "path must start with / (a path of this sandbox, with its query string).",
  recursive: "A fixture step cannot apply fixtures.",
  expectStatus: "expect_status must be an HTTP status from 100 to 599.",
  unknownName: (reference: string, name: string) =>
    `${reference}: no step before this one is named "${name}" (name a step with "name" to refer to its answer).`,
  missingField: (reference: string, name: string, field: string) =>
    `${reference}: the answer of step "${name}" has no field "${field}".`,
  notScalar: (reference: string) =>
    `${reference} is an object or an array: inside a longer string, only a text or a number can be put.`,
  failed: (where: string, method: string, path: string, status: number, message: string) =>
    `Step ${where} (${method} ${path}) answered ${status}: ${message} Nothing of the document was kept.`,
  refFailed: (where: string, message: string) => `Step ${where}: ${message} Nothing of the document was kept.`,
} as const;

/** Where a step is, for messages: `2 ("ada_card")` (1-based). */
function stepLabel(index: number, step: { name?: unknown }): string {
  return typeof step.name === "string" ? `${index + 1} ("${step.name}")` : String(index + 1);
}

/** A document's steps checked for shape, or a 422 naming each bad step's field. */
export function checkSteps(steps: unknown): FixtureStep[] {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > MAX_FIXTURE_STEPS) {
    fail("steps", FIXTURE_MESSAGES.steps);
    throw fixtureError(errors);
  }
  const names = new Set<string>();
  steps.forEach((step: unknown, index) => {
    const at = `steps[${index}]`;
    if (!step || typeof step !== "object" || Array.isArray(step)) return fail(at, FIXTURE_MESSAGES.shape);
    const s = step as Record<string, unknown>;
    if (s.name !== undefined) {
      if (typeof s.name !== "string" || !STEP_NAME.test(s.name)) fail(`${at}.name`, FIXTURE_MESSAGES.name);
      else if (s.name === "merchant") fail(`${at}.name`, FIXTURE_MESSAGES.reserved);
      else if (names.has(s.name)) fail(`${at}.name`, FIXTURE_MESSAGES.duplicate(s.name));
      else names.add(s.name);
    }
    const isClock = "clock" in s;
    const isCall = "method" in s || "path" in s;
    if (isClock === isCall) return fail(at, FIXTURE_MESSAGES.shape);
    const known = isClock ? ["name", "clock"] : ["name", "method", "path", "body", "expect_status"];
    for (const key of Object.keys(s)) if (!known.includes(key)) fail(`${at}.${key}`, FIXTURE_MESSAGES.shape);
    if (isClock) {
      const clock = s.clock as Record<string, unknown> | null;
      if (!clock || typeof clock !== "object" || !("advance" in clock) || Object.keys(clock).length !== 1)
        fail(`${at}.clock`, FIXTURE_MESSAGES.shape);
      return;
    }
    if (typeof s.method !== "string" || !METHODS.has(s.method.toUpperCase()))
      fail(`${at}.method`, FIXTURE_MESSAGES.method);
    if (typeof s.path !== "string" || !s.path.startsWith("/") || s.path.startsWith("//"))
      fail(`${at}.path`, FIXTURE_MESSAGES.path);
    else if (/^\/_sandbox\/fixtures(\/|\?|$)/.test(s.path)) fail(`${at}.path`, FIXTURE_MESSAGES.recursive);
    if (
      s.expect_status !== undefined &&
      !(Number.isInteger(s.expect_status) && (s.expect_status as number) >= 100 && (s.expect_status as number) <= 599)
    )
      fail(`${at}.expect_status`, FIXTURE_MESSAGES.expectStatus);
  });
  if (Object.keys(errors).length > 0) throw fixtureError(errors);
  return steps as FixtureStep[];
}

function fixtureError(errors: Record<string, string[]>, message?: string, context: Record<string, unknown> = {}) {
  const all = Object.values(errors).flat();
  return new ApiError("validation_error", message ?? all[0] ?? FIXTURE_MESSAGES.shape, { errors, ...context });
}

/** The value at a dotted path (`child_transactions.0.id`), or undefined. */
function pick(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

class ReferenceFailed extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Puts earlier results in place of the `${name:field}` references of a value. A string that is
 * exactly one reference becomes the value itself (a number stays a number, an object an object);
 * a reference inside a longer string is put in as text. `field` names where the value is, for errors.
 */
export function resolveReferences(value: unknown, results: Record<string, unknown>, field: string): unknown {
  if (typeof value === "string") {
    const whole = /^\$\{([^}:]*):([^}]*)\}$/.exec(value);
    const lookUp = (reference: string, name: string, path: string) => {
      if (!Object.hasOwn(results, name))
        throw new ReferenceFailed(field, FIXTURE_MESSAGES.unknownName(reference, name));
      const found = pick(results[name], path);
      if (found === undefined) throw new ReferenceFailed(field, FIXTURE_MESSAGES.missingField(reference, name, path));
      return found;
    };
    if (whole) return lookUp(value, whole[1]!, whole[2]!);
    return value.replace(REFERENCE, (reference, name: string, path: string) => {
      const found = lookUp(reference, name, path);
      if (found !== null && typeof found === "object")
        throw new ReferenceFailed(field, FIXTURE_MESSAGES.notScalar(reference));
      return String(found);
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => resolveReferences(item, results, `${field}[${index}]`));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value))
      Object.defineProperty(out, key, {
        value: resolveReferences(member, results, `${field}.${key}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

/** A document's identity for `once`: its steps as canonical JSON (keys sorted), hashed. */
export function fixtureHash(steps: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === "object"
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
          )
        : value;
  return sha256Hex(JSON.stringify(canonical(steps)));
}

export class FixtureService {
  constructor(
    private readonly db: Database,
    private readonly snapshots: SnapshotService,
    private readonly clock: SandboxClock,
  ) {}

  /**
   * Runs a document's steps for the merchant. On the first failing step the merchant's state is
   * put back as it was before the document (a snapshot taken first) and a 422 names the step.
   */
  async apply(
    merchant: { id: string; web_payments_token: string },
    document: FixtureDocument,
    send: FixtureSend,
  ): Promise<FixtureResult> {
    const steps = checkSteps(document.steps);
    const hash = fixtureHash(steps);
    if (document.once) {
      const before = await repo.appliedFixture(this.db, merchant.id, hash);
      if (before !== undefined) return { applied: false, results: JSON.parse(before) as Record<string, unknown> };
    }
    // Not a name a client can give (they start with a letter or digit): never one of theirs.
    const guard = `_fixtures-${randomToken("", 9)}`;
    await this.snapshots.create(merchant.id, guard);
    try {
      const results = await this.run(merchant, steps, send);
      if (document.once)
        await repo.recordFixture(
          this.db,
          merchant.id,
          hash,
          JSON.stringify(results),
          this.clock.timestamp(merchant.id),
        );
      return { applied: true, results };
    } catch (error) {
      await this.snapshots.restore(merchant.id, guard);
      throw error;
    } finally {
      await this.snapshots.delete(merchant.id, guard).catch(() => undefined);
    }
  }

  private async run(
    merchant: { id: string; web_payments_token: string },
    steps: FixtureStep[],
    send: FixtureSend,
  ): Promise<Record<string, unknown>> {
    const known: Record<string, unknown> = {
      merchant: { id: merchant.id, web_payments_token: merchant.web_payments_token },
    };
    const results: Record<string, unknown> = {};
    for (const [index, step] of steps.entries()) {
      const where = stepLabel(index, step);
      const at = `steps[${index}]`;
      let request: { method: string; path: string; body?: unknown };
      let expected: number | undefined;
      try {
        if ("clock" in step) {
          request = {
            method: "POST",
            path: "/_sandbox/clock/advance",
            body: resolveReferences(step.clock.advance, known, `${at}.clock.advance`),
          };
        } else {
          request = {
            method: step.method.toUpperCase(),
            path: resolveReferences(step.path, known, `${at}.path`) as string,
            body: step.body === undefined ? undefined : resolveReferences(step.body, known, `${at}.body`),
          };
          expected = step.expect_status;
        }
      } catch (error) {
        if (!(error instanceof ReferenceFailed)) throw error;
        throw fixtureError({ [error.field]: [error.message] }, FIXTURE_MESSAGES.refFailed(where, error.message), {
          step: { index, name: step.name ?? null },
        });
      }
      const answer = await send(request);
      const ok = expected === undefined ? answer.status >= 200 && answer.status < 300 : answer.status === expected;
      if (!ok) throw this.stepFailed(index, step, request, answer);
      if (step.name) {
        known[step.name] = answer.body;
        results[step.name] = answer.body;
      }
    }
    return results;
  }

  /** The 422 of a step whose answer was not the one expected: each field it named, under the step. */
  private stepFailed(
    index: number,
    step: FixtureStep,
    request: { method: string; path: string },
    answer: { status: number; body: unknown },
  ): ApiError {
    const at = `steps[${index}]`;
    const body = (answer.body ?? {}) as { message?: unknown; errors?: unknown };
    const message = typeof body.message === "string" ? body.message : `HTTP ${answer.status}`;
    const errors: Record<string, string[]> = {};
    const base = "clock" in step ? `${at}.clock.advance` : `${at}.body`;
    if (body.errors && typeof body.errors === "object")
      for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>))
        errors[`${base}.${field}`] = Array.isArray(messages) ? messages.map(String) : [String(messages)];
    if (Object.keys(errors).length === 0) errors[at] = [message];
    return fixtureError(
      errors,
      FIXTURE_MESSAGES.failed(stepLabel(index, step), request.method, request.path, answer.status, message),
      { step: { index, name: step.name ?? null, status: answer.status, answer: answer.body } },
    );
  }
}
