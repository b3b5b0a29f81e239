/**
 * Bounded waits for the test suites: a test waits for the event or condition it expects, never
 * for a fixed time. A wait that runs out fails with what it was waiting for.
 *
 * @example
 * ```ts
 * import { waitFor } from "../support/wait";
 * await waitFor(() => receiver.delivered().length === 1, { what: "the delivery" });
 * const email = await waitFor(() => outbox.latest(), { timeoutMs: 10_000, what: "the receipt" });
 * ```
 */

export interface WaitOptions {
  /** How long to wait before failing (5 s). Generous: CI machines are shared and slow. */
  timeoutMs?: number;
  /** Named in the failure message: "timed out after 5000 ms waiting for <what>". */
  what?: string;
  /** How often to look again (20 ms). */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value of `condition()`, asking again every `intervalMs`; rejects
 * after `timeoutMs`. A `condition` that throws fails the wait at once.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 5000, what = "the condition", intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(intervalMs);
  }
}

/** Resolves once `url` stops answering (its process is gone), polling; rejects after `timeoutMs`. */
export async function waitUntilDown(url: string, options: WaitOptions = {}): Promise<void> {
  await waitFor(
    () =>
      fetch(url).then(
        async (response) => {
          await response.body?.cancel();
          return false;
        },
        () => true,
      ),
    { intervalMs: 50, what: `${url} to stop answering`, ...options },
  );
}
