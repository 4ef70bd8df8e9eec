import os from 'node:os';
import { loadWorkerConfig } from '../config.js';
import { createCounterFold, type CounterFold } from '../memory/index.js';
import { redactionIncrements } from '../telemetry/index.js';
import { totalRedactions, type RedactionCounts } from '../redaction/index.js';
import type { ShareEnvironment } from '../share/index.js';
import type { Store } from '../store/index.js';
import { UsageError, type CliIO } from './command.js';

/** What every `memtrace share` command works from: the data dir, its store file, libpq's environment. */
export interface ShareCliContext {
  dataDir: string;
  dbFile: string;
  environment: ShareEnvironment;
}

export function shareCliContext(io: CliIO): ShareCliContext {
  const homeDir = io.env.HOME || os.homedir();
  const loaded = loadWorkerConfig(io.env, homeDir);
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  return { dataDir: loaded.config.dataDir, dbFile: loaded.config.dbFile, environment: { env: io.env, homeDir } };
}

/** share_rollup (trigger cli) and redactions on the way out or in (edge share), folded for the worker to send. */
export function shareTelemetry(context: ShareCliContext, io: CliIO, store: Store) {
  const fold: CounterFold | null = createCounterFold({ dataDir: context.dataDir, env: io.env }, { db: store.db });
  return {
    counters: (increments: Record<string, number>) => fold?.('share_rollup', { trigger: 'cli' }, increments, Date.now()),
    redactions: (counts: RedactionCounts) => {
      if (totalRedactions(counts) > 0) fold?.('redaction_rollup', { edge: 'share' }, redactionIncrements(counts), Date.now());
    },
  };
}

/** `user@host`: how this machine's records are named to the other members unless --name says otherwise. */
export function defaultLabel(env: Record<string, string | undefined>): string {
  let user = env.USER || env.LOGNAME || '';
  if (!user) {
    try {
      user = os.userInfo().username;
    } catch {
      user = 'someone';
    }
  }
  return `${user}@${os.hostname().split('.')[0] || 'localhost'}`;
}

/** A one-line progress bar on a terminal, by count, redrawn at most every 100 ms. */
export function countProgress(out: { write(chunk: string): unknown }, label: string, width = 30) {
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(done: number, total: number, force = false) {
      const now = performance.now();
      if (!force && now - drawnAt < 100) return;
      drawnAt = now;
      drawn = true;
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(share * width);
      out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}%  ${done}/${total} `);
    },
    done() {
      if (drawn) out.write('\n');
    },
  };
}
