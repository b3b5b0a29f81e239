/**
 * scripts/bench/profile-parts.ts, the table of docs/architecture.md "Where a POST /charge's CPU
 * goes": each sample of a CPU profile goes to the part of a charge it was in.
 */
import { describe, expect, test } from "bun:test";
import { partsOf, type Profile, type ProfileNode } from "../../scripts/bench/profile-parts";

/** A profile of the given stacks (root first), one sample each, 1 ms apart. */
function profileOf(stacks: string[][]): Profile {
  const nodes: ProfileNode[] = [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [] },
  ];
  const samples: number[] = [];
  for (const stack of stacks) {
    let parent = nodes[0]!;
    for (const frame of stack) {
      const [functionName, url = ""] = frame.split(" ");
      const node: ProfileNode = {
        id: nodes.length + 1,
        callFrame: { functionName: functionName!, url, lineNumber: 1 },
      };
      parent.children = [...(parent.children ?? []), node.id];
      nodes.push(node);
      parent = node;
    }
    samples.push(parent.id);
  }
  return { nodes, samples, timeDeltas: samples.map(() => 1000) };
}

const SRC = "file:///repo/src";

describe("the parts of a charge in a CPU profile", () => {
  test("a statement goes to the SQL row of the repository function that ran it; other samples to their first named frame", () => {
    const profile = profileOf([
      [
        "handle",
        `insertCharge ${SRC}/storage/repositories/transactions.ts`,
        `runNow ${SRC}/storage/sqlite/database.ts`,
        "run",
      ],
      [
        `findChargeableWithCustomer ${SRC}/storage/repositories/payment-methods.ts`,
        `getNow ${SRC}/storage/sqlite/database.ts`,
      ],
      [`transaction ${SRC}/storage/sqlite/database.ts`, `control ${SRC}/storage/sqlite/database.ts`],
      [`byHash ${SRC}/services/merchants.ts`, `foreignCommitMark ${SRC}/storage/sqlite/database.ts`],
      ["handle", `charge ${SRC}/services/transactions/index.ts`, `buildRecord ${SRC}/services/transactions/records.ts`],
      ["handle", "json"],
      ["handle", "mirror"],
      [`checkHost ${SRC}/http/pipeline/host.ts`, "get"],
      [`parseJsonBody ${SRC}/http/pipeline/json.ts`],
      ["(anon)"],
    ]);
    const parts = partsOf(profile, 1, 0);
    expect(Object.fromEntries(parts)).toEqual({
      "SQL: the INSERT into transactions": 0.1,
      "SQL: the payment method and its customer": 0.1,
      "SQL: SAVEPOINT, RELEASE, the grouped BEGIN and COMMIT": 0.1,
      "SQL: PRAGMA data_version, other statements": 0.1,
      "the charge: rules, the row and the record, the clock, the route": 0.1,
      "Elysia: compiled handler, the answer's JSON and Response": 0.1,
      "Elysia: normalizer (exact-mirror) and schema checks": 0.1,
      "pipeline before routing (host, NUL, CORS, sandbox controls, faults)": 0.1,
      "reading and parsing the body": 0.1,
      "no JavaScript frame: Bun's HTTP server, garbage collection": 0.1,
    });
  });

  test("only the measured seconds count: the warm-up before them and the stop after them are left out", () => {
    const warm = Array.from({ length: 5 }, () => ["handle", "json"]);
    const measured = Array.from({ length: 4 }, () => [`charge ${SRC}/services/transactions/index.ts`]);
    const stop = Array.from({ length: 3 }, () => ["(anon)"]);
    const parts = partsOf(profileOf([...warm, ...measured, ...stop]), 0.004, 0.003);
    expect(Object.fromEntries(parts)).toEqual({ "the charge: rules, the row and the record, the clock, the route": 1 });
  });

  test("the floor's statements, run by bench/ceiling.ts itself, are its SQL", () => {
    const parts = partsOf(
      profileOf([
        ["handle", "(anon) file:///repo/bench/ceiling.ts", "get"],
        ["handle", "json"],
      ]),
      1,
      0,
    );
    expect(Object.fromEntries(parts)).toEqual({
      "SQL: the floor's statements": 0.5,
      "Elysia: compiled handler, the answer's JSON and Response": 0.5,
    });
  });
});
