import type { Hono } from 'hono';
import { listSpool, readSpooled, removeSpooled } from '../data-dir/spool.js';
import type { Logger } from '../log.js';
import type { HookAccounting } from './hook-accounting.js';

/**
 * Replays hook calls that were spooled while the worker was down or slow, through the same app
 * (same validation, same dedup), oldest first. A call the store cannot take now (5xx) stays
 * for the next pass; one the API refuses (4xx) would never succeed and is dropped with a log line.
 */
export async function replaySpool(deps: { dataDir: string; app: Hono; port: number; token: string; hooks: HookAccounting; log: Logger; nowMs: () => number }): Promise<number> {
  let replayed = 0;
  for (const name of listSpool(deps.dataDir)) {
    const call = readSpooled(deps.dataDir, name);
    if (!call) {
      deps.log.warn('spooled hook call unreadable; removed', { file: name });
      removeSpooled(deps.dataDir, name);
      continue;
    }
    const response = await deps.app.request(call.path, {
      method: 'POST',
      headers: { host: `127.0.0.1:${deps.port}`, authorization: `Bearer ${deps.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
    });
    if (response.status >= 500) {
      deps.log.warn('spooled hook calls wait: the worker cannot take them now', { status: response.status });
      break;
    }
    if (response.status >= 400) deps.log.warn('spooled hook call refused; dropped', { path: call.path, status: response.status, body: (await response.text()).slice(0, 300) });
    removeSpooled(deps.dataDir, name);
    deps.hooks.replayed(call, deps.nowMs());
    replayed += 1;
  }
  return replayed;
}
