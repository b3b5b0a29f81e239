/** The processes the bench starts: servers in their own process groups, their memory and CPU time. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_KEY, median, ROOT } from "./options";

export const children = new Set<ChildProcess>();

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
  });
}

export function stopAll(): void {
  for (const child of children) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

export interface Started {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawn to the first 200. */
  startMs: number;
}

/**
 * Spawns a server command (its own process group), reads the port from its banner and waits for
 * the first 200 on `probe`.
 */
export async function startServer(command: string, args: string[], probe = "/self"): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let output = "";
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no banner within 20 s from ${command}: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API\s+https?:\/\/[^\s:]+:(\d+)/.exec(output) ?? /^port (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        done(Number(match[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}: ${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 10_000; ;) {
    const res = await fetch(url + probe, { headers: { authorization: `Bearer ${API_KEY}` } }).catch(() => null);
    if (res?.status === 200) {
      await res.arrayBuffer();
      break;
    }
    if (Date.now() > deadline) throw new Error(`no 200 on ${probe} within 10 s`);
    await Bun.sleep(2);
  }
  return { child, url, startMs: performance.now() - t0 };
}

/** Resident set size (current and peak) of a process and its children, in MB. */
export function rssOf(pid: number): { rss: number; peak: number } {
  let rss = 0;
  let peak = 0;
  const visit = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const kids = readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim();
      for (const kid of kids ? kids.split(/\s+/) : []) visit(Number(kid));
    } catch {
      // gone
    }
  };
  visit(pid);
  return { rss, peak };
}

/** CPU time (user + system) a process has used, in microseconds (/proc/PID/stat, all its threads). */
export function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/**
 * The CPU time of a PostgreSQL server and all its processes (the postmaster of `dataDir` and its
 * children: one backend per connection, the WAL writer, the checkpointer…), in microseconds.
 */
export function serverCpuMicros(dataDir: string): number {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let total = cpuMicros(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(fields[1]) === postmaster) total += cpuMicros(Number(entry)) || 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export async function coldStart(command: string, args: (db: string) => string[], runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-start-"));
    const started = await startServer(command, args(join(dir, "db.sqlite")));
    times.push(started.startMs);
    await stopChild(started.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return median(times);
}
