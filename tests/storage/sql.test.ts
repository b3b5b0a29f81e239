import { describe, expect, test } from "bun:test";
import { renderSql, sql } from "../../src/storage/database";

describe("the sql tag", () => {
  test("values become placeholders: ? for SQLite, $1.. for PostgreSQL", () => {
    const q = sql`SELECT * FROM t WHERE a = ${"x"} AND b = ${2} AND c IS ${null}`;
    expect(renderSql(q, "sqlite")).toEqual({
      text: "SELECT * FROM t WHERE a = ? AND b = ? AND c IS ?",
      values: ["x", 2, null],
    });
    expect(renderSql(q, "postgres")).toEqual({
      text: "SELECT * FROM t WHERE a = $1 AND b = $2 AND c IS $3",
      values: ["x", 2, null],
    });
  });

  test("nested fragments are inlined and numbered in order", () => {
    const where = sql`merchant_id = ${"m1"} AND created_at < ${"2026-01-01 00:00:00"}`;
    const q = sql`SELECT * FROM t WHERE ${where} ORDER BY ${sql.raw("created_at DESC")} LIMIT ${25}`;
    expect(renderSql(q, "postgres")).toEqual({
      text: "SELECT * FROM t WHERE merchant_id = $1 AND created_at < $2 ORDER BY created_at DESC LIMIT $3",
      values: ["m1", "2026-01-01 00:00:00", 25],
    });
  });

  test("join puts the separator between fragments, and an empty join renders nothing", () => {
    const conditions = [sql`a = ${1}`, sql`b = ${2}`, sql`c IS NULL`];
    expect(renderSql(sql`WHERE ${sql.join(conditions, " AND ")}`, "postgres")).toEqual({
      text: "WHERE a = $1 AND b = $2 AND c IS NULL",
      values: [1, 2],
    });
    expect(renderSql(sql`(${sql.join([sql`${"x"}`, sql`${"y"}`])})`, "sqlite")).toEqual({
      text: "(?, ?)",
      values: ["x", "y"],
    });
    expect(renderSql(sql`x${sql.join([])}y`, "sqlite").text).toBe("xy");
  });

  test("a boolean, a bigint, undefined or NaN is refused with the parameter's position", () => {
    expect(() => renderSql(sql`SELECT ${"a"}, ${true}`, "sqlite")).toThrow(
      "SQL parameter 2: expected a string, a number or null, got boolean (flags are 0 or 1)",
    );
    expect(() => renderSql(sql`SELECT ${1n}`, "postgres")).toThrow("got bigint");
    expect(() => renderSql(sql`SELECT ${undefined}`, "postgres")).toThrow("got undefined");
    expect(() => renderSql(sql`SELECT ${Number.NaN}`, "postgres")).toThrow("expected a finite number, got NaN");
  });
});
