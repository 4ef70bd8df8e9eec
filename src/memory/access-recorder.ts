import type Database from 'better-sqlite3';
import { baseProperties } from '../telemetry/base-properties.js';
import { ensureTelemetryConfig, readTelemetryConfig } from '../telemetry/config-file.js';
import { resolveConsent } from '../telemetry/consent.js';
import { createRollupBook } from '../telemetry/rollup-book.js';
import { createTelemetryStore } from '../telemetry/telemetry-store.js';
import { APP_VERSION } from '../version.js';
import { redactionIncrements } from '../telemetry/index.js';
import { totalRedactions } from '../redaction/index.js';
import { accessIncrements, NO_ACCESS_TELEMETRY, type MemoryAccessSink } from './access-counters.js';

/**
 * memory_access_rollup from processes that are not the worker (a `memtrace search`, the MCP
 * server, the viewer): each access is folded into the durable 5-minute accumulator in the same
 * database, the one the worker's telemetry tick closes, scrubs and sends. So the counts need no
 * worker to be running, no network call is ever made from these commands, and consent is decided
 * by the same layers as everywhere else. Only the rollup book is built here — not the sink, the
 * delivery or OpenTelemetry — so a one-shot command does not pay for loading them. A fold never
 * fails the command.
 */
/** Folds windowed counters into the durable rollup book; the worker's tick sends them. */
export type CounterFold = (event: string, dims: Record<string, string>, increments: Record<string, number>, nowMs: number) => void;

/**
 * The fold for a process that is not the worker (see createAccessRecorder): null when telemetry
 * is off or its config cannot be read. A fold never throws.
 */
export function createCounterFold(config: { dataDir: string; env: Record<string, string | undefined> }, deps: { db: Database.Database }): CounterFold | null {
  let book: ReturnType<typeof createRollupBook>;
  try {
    let read = readTelemetryConfig(config.dataDir);
    if (!resolveConsent({ env: config.env, file: read.state }).enabled) return null;
    // As the worker does on its first start: an install id before anything is counted for it.
    if (read.state.status === 'missing') read = ensureTelemetryConfig(config.dataDir);
    const base = baseProperties({ appVersion: APP_VERSION, platform: process.platform, arch: process.arch, nodeVersion: process.version, env: config.env });
    book = createRollupBook({
      store: createTelemetryStore(deps.db),
      installId: read.config?.install_id ?? '00000000-0000-4000-8000-000000000000',
      provider: 'none',
      base,
    });
  } catch {
    return null;
  }
  return (event, dims, increments, nowMs) => {
    if (Object.keys(increments).length === 0) return;
    try {
      // Immediate: the worker may close the same window meanwhile; read-add-write must not interleave with it.
      deps.db.transaction(() => book.foldCounters(event, dims, increments, nowMs)).immediate();
    } catch {
      /* telemetry never breaks a command */
    }
  };
}

export function createAccessRecorder(config: { dataDir: string; env: Record<string, string | undefined> }, deps: { db: Database.Database }): MemoryAccessSink {
  const fold = createCounterFold(config, deps);
  if (fold === null) return NO_ACCESS_TELEMETRY;
  return {
    record: (via, access, nowMs) => fold('memory_access_rollup', { via }, accessIncrements(access), nowMs),
    redacted: (counts, nowMs) => {
      if (totalRedactions(counts) > 0) fold('redaction_rollup', { edge: 'import' }, redactionIncrements(counts), nowMs);
    },
  };
}
