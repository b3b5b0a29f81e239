/**
 * The parts of a POST /charge in a CPU profile of the server (scripts/bench/charge-profile.ts,
 * docs/architecture.md "Where a POST /charge's CPU goes"): which part of a charge each sample of
 * the JavaScript thread was in.
 */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Statement runners of src/storage/sqlite/database.ts: a sample under one of them is SQL. */
const STATEMENT =
  /^(runNow|getNow|allNow|control|foreignCommitMark|prepare|statementOf) src\/storage\/sqlite\/database\.ts/;

/** The SQL rows, by the function that ran the statement (the first that matches, whole stack). */
const SQL_PARTS: [string, RegExp][] = [
  ["SQL: the INSERT into transactions", /^(insertCharge|chargeBatch) /],
  [
    "SQL: the payment method and its customer",
    /^(findChargeableWithCustomer|findChargeablePaymentMethod|findCustomerOfPaymentMethod) /,
  ],
  ["SQL: SAVEPOINT, RELEASE, the grouped BEGIN and COMMIT", /^(control|commitBatch|joinBatch) /],
  ["SQL: PRAGMA data_version, other statements", /./],
];

/** The other rows, by the first frame from the leaf that names one. */
const PARTS: [string, RegExp][] = [
  ["Elysia: normalizer (exact-mirror) and schema checks", /^(mirror|check|Check|Clean) [^/]*$|exact-mirror|typebox/],
  ["Elysia: compiled handler, the answer's JSON and Response", /^(handle|map|json|toJSON) [^/]*$|node_modules\/elysia/],
  ["pipeline before routing (host, NUL, CORS, sandbox controls, faults)", /src\/http\/pipeline\/(?!body|json)/],
  ["reading and parsing the body", /src\/http\/pipeline\/(body|json)\.ts/],
  ["authentication", /src\/http\/auth\.ts|src\/services\/merchants\.ts|^(sha256Hex|constantTimeEqual) /],
  ["the webhook outbox", /src\/domain\/events\.ts|src\/services\/webhooks/],
  [
    "the idempotent write's wrapper, the unit of work, the wait for the commit",
    /src\/http\/idempotency|src\/services\/idempotency|src\/storage\/(database|sqlite\/(database|group-commit|checkpointer))\.ts|src\/entry\/server/,
  ],
  ["the charge: rules, the row and the record, the clock, the route", /src\/|packages\/rules/],
];

const frameName = (node: ProfileNode) =>
  `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url.replace(/^.*?\/(src|packages|node_modules)\//, "$1/")}:${node.callFrame.lineNumber}`;

/** The floor's statements (bench/ceiling.ts runs bun:sqlite itself): a native statement call under it. */
const FLOOR_STATEMENT = /^(get|run|all|values|#get|#run|#runNoArgs|#all) (bun:sqlite)?:/;

/** Each part's share of the samples of the `seconds` that end `tailSeconds` before the profile does. */
export function partsOf(profile: Profile, seconds: number, tailSeconds: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const end = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const counts = new Map<string, number>();
  let at = 0;
  let kept = 0;
  profile.samples.forEach((sample, index) => {
    at += profile.timeDeltas[index]!;
    if (at <= end - (seconds + tailSeconds) * 1e6 || at > end - tailSeconds * 1e6) return;
    const stack: string[] = [];
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id))
      stack.push(frameName(byId.get(id)!));
    const statement = stack.findIndex((frame) => STATEMENT.test(frame));
    const firstSource = stack.findIndex((frame) => /(src|packages)\//.test(frame));
    let part: string | undefined;
    if (stack.some((frame) => frame.includes("bench/ceiling.ts")) && FLOOR_STATEMENT.test(stack[0]!))
      part = "SQL: the floor's statements";
    else if (statement >= 0 && statement <= firstSource)
      part = SQL_PARTS.find(([, pattern]) => stack.some((frame) => pattern.test(frame)))![0];
    for (const frame of part ? [] : stack) {
      part = PARTS.find(([, pattern]) => pattern.test(frame))?.[0];
      if (part) break;
    }
    part ??= stack.length <= 2 ? "no JavaScript frame: Bun's HTTP server, garbage collection" : "other";
    counts.set(part, (counts.get(part) ?? 0) + 1);
    kept++;
  });
  return new Map([...counts].map(([part, count]) => [part, count / Math.max(1, kept)]));
}
