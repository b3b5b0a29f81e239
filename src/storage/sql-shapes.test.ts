import { describe, expect, test } from "bun:test";
import { renderSql, sql, type Sql } from "./database";
import { SqlShapes } from "./sql-shapes";

/** One call site each, as the repositories build them: a fragment or a value in the same holes. */
const byKey = (id: string, merchant: string | Sql, operator: string) =>
  sql`SELECT * FROM t WHERE id = ${id} AND ${sql`${sql.raw("merchant_id")}${sql.raw(operator)}${merchant}`}`;
const eitherHole = (first: unknown, second: unknown) => sql`SELECT ${first} AS a, ${second} AS b FROM t`;
const nested = (inner: Sql, tail: unknown) => sql`SELECT * FROM t WHERE ${inner} AND x = ${tail}`;
const call = (a: unknown, b: unknown) => sql`f(${a}, ${b})`;

function queries(): Sql[] {
  return [
    byKey("i1", "m1", " = "),
    byKey("i2", "m2", " IS NOT DISTINCT FROM "),
    byKey("i3", sql.raw("k.merchant_id"), " = "),
    byKey("i4", sql`lower(${"M"})`, " = "),
    // A hole holds a value in one call and a fragment in another: two shapes, never one.
    eitherHole(1, sql.raw("now()")),
    eitherHole(sql.raw("now()"), 1),
    eitherHole(2, 3),
    eitherHole(sql`${4} + ${5}`, sql`${6}`),
    eitherHole(sql`${6}`, sql`${4} + ${5}`),
    // The same fragment call site deeper or shallower: the walk marks where it leaves a fragment.
    nested(sql`y = ${7}${sql` AND z = ${8}`}`, 9),
    nested(sql`y = ${7}${sql``}`, sql` AND z = ${8}`),
    nested(sql`y = ${7}${sql.raw("")}`, 10),
    // A fragment in hole 1 of an inner fragment, then in hole 1 of the outer one: the same steps
    // but for where the walk leaves the inner fragment.
    eitherHole(call(1, sql.raw("now()")), 2),
    eitherHole(call(1, 2), sql.raw("now()")),
  ];
}

describe("SqlShapes", () => {
  test("gives every query the text and parameters renderSql gives it, first time and again", () => {
    for (const dialect of ["sqlite", "postgres"] as const) {
      const shapes = new SqlShapes<string>(dialect, (text) => text);
      for (const round of [1, 2]) {
        for (const query of queries()) {
          const { text, values } = renderSql(query, dialect);
          expect({ round, ...shapes.lookup(query) }).toEqual({ round, payload: text, params: values });
        }
      }
    }
  });

  test("makes one payload per shape, not per call", () => {
    const made: string[] = [];
    const shapes = new SqlShapes<string>("sqlite", (text) => (made.push(text), text));
    for (let n = 0; n < 100; n++) shapes.lookup(byKey(`i${n}`, `m${n}`, n % 2 ? " = " : " IS NOT DISTINCT FROM "));
    expect(made).toHaveLength(2);
  });

  test("leaves a query with a joined list, or past its limit of nodes, to the caller", () => {
    const text = (limit: number) => new SqlShapes<string>("sqlite", (t) => t, limit);
    expect(text(100).lookup(sql`SELECT ${sql.join([sql`a`, sql`b`])} FROM t`)).toBeUndefined();
    // byKey's shape: its root, the fragment's step, its two raw steps and the walk's exit from it.
    expect(text(4).lookup(byKey("i", "m", " = "))).toBeUndefined();
    expect(text(5).lookup(byKey("i", "m", " = "))?.params).toEqual(["i", "m"]);
  });
});
