import type Database from 'better-sqlite3';
import { systemClock } from '../clock.js';
import { silentLogger } from '../log.js';
import { createTelemetry } from '../telemetry/runtime.js';
import { APP_VERSION } from '../version.js';
import { accessIncrements, type MemoryAccessSink } from './access-counters.js';

/**
 * memory_access_rollup from processes that are not the worker (a `memtrace search`, the MCP
 * server, the viewer): each access is folded into the durable 5-minute accumulator in the same
 * database, the one the worker's telemetry tick closes, scrubs and sends. So the counts need no
 * worker to be running, no network call is ever made from these commands, and consent is decided
 * by the same layers as everywhere else. A fold never fails the command.
 */
export function createAccessRecorder(config: { dataDir: string; env: Record<string, string | undefined> }, deps: { db: Database.Database; stderr: { write(chunk: string): unknown } }): MemoryAccessSink {
  let telemetry: ReturnType<typeof createTelemetry> | null = null;
  try {
    telemetry = createTelemetry({ dataDir: config.dataDir, env: config.env, appVersion: APP_VERSION, provider: 'none' }, { db: deps.db, clock: systemClock, log: silentLogger, stderr: deps.stderr });
  } catch {
    telemetry = null;
  }
  return {
    record(via, access, nowMs) {
      if (!telemetry) return;
      const increments = accessIncrements(access);
      if (Object.keys(increments).length === 0) return;
      try {
        // Immediate: the worker may close the same window meanwhile; read-add-write must not interleave with it.
        deps.db.transaction(() => telemetry!.recordCounters('memory_access_rollup', { via }, increments, nowMs)).immediate();
      } catch {
        /* telemetry never breaks a command */
      }
    },
  };
}
