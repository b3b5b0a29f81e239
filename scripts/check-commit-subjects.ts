#!/usr/bin/env bun
/**
 * Commit subjects of at most 72 characters: the subject says what changed, the body says why
 * (run by tests/unit/commit-subjects.test.ts, so by `npm test`). Only commits after BASE are
 * checked; the history before it is left as it is.
 *
 * A clone may be shallow or lack BASE (CI clones, a tarball): then the commits that are there and
 * were committed after BASE's commit time are checked, and outside a git checkout nothing is.
 *
 *   bun scripts/check-commit-subjects.ts     # prints each subject over the limit; exits 1 if any
 */
import { resolve } from "node:path";

export const MAX_SUBJECT = 72;
/** The last commit before the rule; its commit time stands in for it where it is missing. */
export const BASE = { commit: "02f9ad8adafd840e7e4658dc03503332e6d6d86e", committedAt: 1795637134 };

export interface SubjectCheck {
  /** How the commits were chosen: after BASE in the graph, by commit time, or none (not a git checkout). */
  range: "graph" | "time" | "none";
  checked: number;
  /** Each subject over MAX_SUBJECT, as "<short hash> (<length>): <subject>". */
  tooLong: string[];
}

function git(cwd: string, args: string[]): { ok: boolean; out: string } {
  const run = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  return { ok: run.exitCode === 0, out: run.stdout.toString() };
}

export function checkCommitSubjects(cwd: string, base = BASE): SubjectCheck {
  if (!git(cwd, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).ok)
    return { range: "none", checked: 0, tooLong: [] };
  const hasBase = git(cwd, ["cat-file", "-e", `${base.commit}^{commit}`]).ok;
  // Unit separator between fields, NUL between commits: a subject may hold any other character.
  const log = git(cwd, ["log", "-z", "--format=%h%x1f%ct%x1f%s", ...(hasBase ? [`${base.commit}..HEAD`] : ["HEAD"])]);
  if (!log.ok) throw new Error(`git log failed in ${cwd}`);
  const commits = log.out
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const [hash = "", time = "0", subject = ""] = entry.split("\x1f");
      return { hash, time: Number(time), subject };
    })
    .filter((commit) => hasBase || commit.time > base.committedAt);
  const tooLong = commits
    .map((commit) => ({ ...commit, length: [...commit.subject].length }))
    .filter((commit) => commit.length > MAX_SUBJECT)
    .map((commit) => `${commit.hash} (${commit.length}): ${commit.subject}`);
  return { range: hasBase ? "graph" : "time", checked: commits.length, tooLong };
}

if (import.meta.main) {
  const result = checkCommitSubjects(resolve(import.meta.dir, ".."));
  for (const line of result.tooLong) console.log(line);
  console.log(
    `${result.checked} commit subjects checked (${result.range}), ${result.tooLong.length} over ${MAX_SUBJECT} characters`,
  );
  process.exit(result.tooLong.length > 0 ? 1 : 0);
}
