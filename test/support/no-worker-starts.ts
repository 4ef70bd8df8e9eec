import fs from 'node:fs';
import path from 'node:path';

/**
 * Any hook that finds no worker starts one, on the data dir's shared schedule (issue 35). A test
 * of what hooks do with no worker at all first sets that schedule's next attempt an hour away, as
 * a run of failed starts would: none of its hooks starts a worker (which would outlive the test).
 */
export function holdWorkerStarts(dataDir: string, nowMs = Date.now()): void {
  const state = {
    attempts: 1,
    last_attempt_at: new Date(nowMs).toISOString(),
    next_attempt_at: new Date(nowMs + 3_600_000).toISOString(),
    last_error: null,
    running_since: null,
  };
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, 'worker-start.json'), `${JSON.stringify(state)}\n`, { mode: 0o600 });
}
