/**
 * WAL checkpoints on a thread of their own, for the server's SQLite file (issue 19).
 *
 * In WAL mode every commit appends pages to the -wal file, and a checkpoint copies them back into
 * the database file and fsyncs it. By default SQLite runs that checkpoint inside the COMMIT that
 * pushes the WAL past 1,000 pages — on the event-loop thread, so every request in flight waits for
 * the copy and the fsync (under `/charge` load: a few times a second, for milliseconds each, which
 * is most of the p99). Here a Worker with its own connection to the same file runs
 * `PRAGMA wal_checkpoint(PASSIVE)` when asked: PASSIVE never blocks the writer, and readers and
 * the writer on the main connection go on meanwhile. A checkpoint is crash-safe wherever it runs,
 * so durability is unchanged: a commit is in the WAL when it is acknowledged, as before.
 *
 * The thread costs about 10 MB, so it starts only once the server has written enough to need it
 * (`START_AFTER_BATCHES`); until then, and as a backstop should the thread fall behind, the main
 * connection keeps SQLite's own automatic checkpoint (at `BACKSTOP_PAGES` once the thread runs).
 */
import type { Database as BunDatabase } from "bun:sqlite";

/** Group-commit batches before the thread starts: a sandbox used by hand never pays for it. */
export const START_AFTER_BATCHES = 200;
/** WAL frames (pages, ~8 MB) a checkpoint should find: fewer, larger checkpoints copy a hot page fewer times. */
const TARGET_FRAMES = 2000;
/** Bounds of the number of batches between two checkpoints (it adapts to the pages per batch). */
const MIN_EVERY = 4;
const MAX_EVERY = 4096;
/** The main connection's own checkpoint once the thread runs: only if the WAL passes ~64 MB. */
const BACKSTOP_PAGES = 16_384;
/** SQLite's own default, restored should the thread fail. */
const DEFAULT_PAGES = 1000;

/**
 * The worker's source: it imports only bun:sqlite, so it runs from a Blob URL, the same under
 * `bun src/entry/server.ts` and in the compiled binary (which holds no separate worker file).
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
let db;
self.onmessage = (event) => {
  const message = event.data;
  try {
    if (message.open) {
      db = new Database(message.open);
      db.exec("PRAGMA busy_timeout = 5000");
      postMessage({ opened: true });
    } else if (message.checkpoint) {
      const result = db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
      postMessage({ checkpointed: result });
    } else if (message.close) {
      db?.close();
      db = undefined;
      postMessage({ closed: true });
    }
  } catch (error) {
    postMessage({ error: String(error && error.message ? error.message : error) });
  }
};
`;

export interface CheckpointStats {
  /** Checkpoints the thread ran. */
  checkpoints: number;
  /** Whether the thread was started. */
  started: boolean;
}

export class BackgroundCheckpointer {
  private worker: Worker | undefined;
  private inFlight = false;
  private batchesSinceAsk = 0;
  /** Batches between two checkpoints: adapted after each so that a checkpoint finds ~TARGET_FRAMES pages. */
  private every = 16;
  private closing: Promise<void> | undefined;
  private closed = false;
  readonly stats: CheckpointStats = { checkpoints: 0, started: false };

  constructor(
    private readonly raw: BunDatabase,
    private readonly path: string,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  /** Called after each committed batch (`batches` counts every batch ever). */
  afterCommit(batches: number): void {
    if (this.closed) return;
    if (!this.worker) {
      if (batches < START_AFTER_BATCHES) return;
      this.start();
    }
    if (++this.batchesSinceAsk < this.every || this.inFlight) return;
    this.batchesSinceAsk = 0;
    this.inFlight = true;
    this.worker!.postMessage({ checkpoint: true });
  }

  private start(): void {
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
    const worker = new Worker(url, { smol: true } as WorkerOptions);
    // The thread must never keep the process alive, nor delay its exit.
    (worker as Worker & { unref(): void }).unref();
    worker.onmessage = (event: MessageEvent) => {
      const message = event.data as {
        opened?: boolean;
        checkpointed?: { busy: number; log: number; checkpointed: number };
        error?: string;
      };
      // The worker loads its source asynchronously: the URL may go only once it runs.
      if (message.opened) URL.revokeObjectURL(url);
      else if (message.checkpointed) {
        this.inFlight = false;
        this.stats.checkpoints++;
        // `log` is the WAL's frames since its last reset, which follows each complete checkpoint:
        // about the pages written since the previous one. Scale the interval toward TARGET_FRAMES.
        const frames = Math.max(1, message.checkpointed.log);
        this.every = Math.min(MAX_EVERY, Math.max(MIN_EVERY, Math.round((this.every * TARGET_FRAMES) / frames)));
      } else if (message.error) {
        this.inFlight = false;
        this.onError(`background WAL checkpoint failed: ${message.error}`);
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      // The thread could not run: SQLite checkpoints on the main connection again, as by default.
      this.onError(`the WAL checkpoint thread stopped: ${event.message}; checkpoints run in commits again`);
      this.closed = true;
      this.raw.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_PAGES}`);
      worker.terminate();
    };
    worker.postMessage({ open: this.path });
    this.worker = worker;
    this.stats.started = true;
    // From now on the thread checkpoints; the main connection only if the WAL grows far.
    this.raw.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }

  /** Stops the thread (its connection closed first), leaving the final checkpoint to the caller. */
  close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.closing ??= new Promise<void>((done) => {
      const timer = setTimeout(finish, 2000);
      function finish() {
        clearTimeout(timer);
        worker!.terminate();
        done();
      }
      worker.addEventListener("message", (event: MessageEvent) => {
        if ((event.data as { closed?: boolean }).closed) finish();
      });
      worker.postMessage({ close: true });
    });
    return this.closing;
  }
}
