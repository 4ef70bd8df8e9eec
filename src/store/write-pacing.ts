/**
 * How a bulk writer in a process of its own (`memtrace import`, `forget`) shares the store's
 * write lock with a running worker. SQLite's busy handler is not fair: a waiting connection
 * sleeps and retries on its own schedule (1, 3, 8, 18, 33 … ms after it began), and a writer that
 * commits and at once begins again finds the lock free first, every time. Short transactions back
 * to back kept a worker's hook waiting until its busy timeout (up to 5.9 s, measured in issue 36).
 * So after each short transaction the bulk writer rests as long as it held the lock; a waiting
 * worker's next retry then finds the lock free with even odds, and the retries come close
 * together at first. With no worker running there is no one to wait for: no rest.
 * Checked against SQLite's busy-handler schedule (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms
 * sleeps): with a rest as long as the hold, some retry of a waiter falls inside a rest whatever the
 * hold, so its wait is about the hold (at worst 8 ms for 5 ms holds, 33 for 20, 103 for 100). The
 * long waits measured in issue 36 came from long holds, so bulk writers keep each transaction short.
 */
export type Rest = (heldMs: number) => Promise<void>;

export const NO_REST: Rest = async () => undefined;

export function restBesideWorker(workerRunning: boolean, sleep: (ms: number) => Promise<void>): Rest {
  return workerRunning ? (heldMs) => sleep(Math.max(1, Math.ceil(heldMs))) : NO_REST;
}
