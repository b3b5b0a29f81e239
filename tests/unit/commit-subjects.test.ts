/**
 * Commit subjects of at most 72 characters after the rule's base commit
 * (scripts/check-commit-subjects.ts): on this repository, and on small repositories made here to
 * show what it catches, what it leaves alone (the history before the base) and how it copes with a
 * clone that lacks the base.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE, MAX_SUBJECT, checkCommitSubjects } from "../../scripts/check-commit-subjects";

const ROOT = join(import.meta.dir, "..", "..");
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, args: string[], committedAt?: number): string {
  const env: Record<string, string> = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  if (committedAt !== undefined) {
    env.GIT_COMMITTER_DATE = `@${committedAt} +0000`;
    env.GIT_AUTHOR_DATE = `@${committedAt} +0000`;
  }
  const run = Bun.spawnSync(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** A repository with one commit per subject, committed at the given times; returns it and the hashes. */
function repository(commits: { subject: string; at: number }[]): { dir: string; hashes: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-subjects-"));
  made.push(dir);
  git(dir, ["init", "-q"]);
  const hashes = commits.map(({ subject, at }, index) => {
    writeFileSync(join(dir, "file.txt"), `${index}\n`);
    git(dir, ["add", "file.txt"]);
    git(dir, ["commit", "-q", "-m", `${subject}\n\nThe body may be as long as it needs to be.`], at);
    return git(dir, ["rev-parse", "HEAD"]);
  });
  return { dir, hashes };
}

const exactly = (length: number) => `Fix ${"x".repeat(length - 4)}`;

describe("commit subjects", () => {
  test(`this repository's commits after the base have subjects of at most ${MAX_SUBJECT} characters`, () => {
    const result = checkCommitSubjects(ROOT);
    expect(result.tooLong).toEqual([]);
  });

  test(`a subject of ${MAX_SUBJECT + 1} characters after the base is caught; ${MAX_SUBJECT} passes; before the base, none counts`, () => {
    const { dir, hashes } = repository([
      { subject: exactly(137), at: 1_000 },
      { subject: "The base", at: 2_000 },
      { subject: exactly(MAX_SUBJECT), at: 3_000 },
      { subject: exactly(MAX_SUBJECT + 1), at: 4_000 },
    ]);
    const result = checkCommitSubjects(dir, { commit: hashes[1]!, committedAt: 2_000 });
    expect(result.range).toBe("graph");
    expect(result.checked).toBe(2);
    expect(result.tooLong).toEqual([`${hashes[3]!.slice(0, 7)} (${MAX_SUBJECT + 1}): ${exactly(MAX_SUBJECT + 1)}`]);
  });

  test("characters are counted, not bytes: 72 accented letters pass", () => {
    const { dir, hashes } = repository([
      { subject: "The base", at: 2_000 },
      { subject: "é".repeat(MAX_SUBJECT), at: 3_000 },
    ]);
    expect(checkCommitSubjects(dir, { commit: hashes[0]!, committedAt: 2_000 }).tooLong).toEqual([]);
  });

  test("without the base commit (a shallow clone), the commits made after its time are checked", () => {
    const { dir } = repository([
      { subject: exactly(137), at: 1_000 },
      { subject: exactly(MAX_SUBJECT + 10), at: 3_000 },
      { subject: "Short", at: 4_000 },
    ]);
    const result = checkCommitSubjects(dir, { commit: "0".repeat(40), committedAt: 2_000 });
    expect(result.range).toBe("time");
    expect(result.checked).toBe(2);
    expect(result.tooLong).toHaveLength(1);
    expect(result.tooLong[0]).toEndWith(exactly(MAX_SUBJECT + 10));
  });

  test("outside a git checkout nothing is checked, and nothing fails", () => {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-subjects-"));
    made.push(dir);
    expect(checkCommitSubjects(dir, BASE)).toEqual({ range: "none", checked: 0, tooLong: [] });
  });
});
