import fs from 'node:fs';
import os from 'node:os';
import type Database from 'better-sqlite3';
import { systemClock } from '../../clock.js';
import { loadWorkerConfig } from '../../config.js';
import { silentLogger } from '../../log.js';
import { openDatabase } from '../../store/index.js';
import type { RepairReport } from '../../compaction/repair/engine.js';
import { createTelemetry } from '../../telemetry/runtime.js';
import { COMPACTION_SKIP_REASONS, type CompactionOrigin } from '../../telemetry/events/compaction-rollup.js';
import { APP_VERSION } from '../../version.js';
import type { CliIO } from '../command.js';

const KNOWN_REASONS = new Set<string>(COMPACTION_SKIP_REASONS);

/** Repair counters for compaction_rollup. Pure. */
export function repairCounters(report: RepairReport): Record<string, number> {
  const counters: Record<string, number> = { passes: 1, repaired: report.repaired, repair_failed: report.failed };
  for (const e of report.entries) {
    if (e.outcome.status === 'repaired' || !KNOWN_REASONS.has(e.outcome.reason)) continue;
    const key = `skipped_${e.outcome.reason}`;
    counters[key] = (counters[key] ?? 0) + 1;
  }
  return counters;
}

/**
 * Folds a repair run into memtrace's telemetry (sent later by the worker). Uses memtrace's store
 * when it is already open or already exists; never creates one, never fails the command.
 */
export function recordRepairTelemetry(io: CliIO, origin: CompactionOrigin, report: RepairReport, memtraceDb: Database.Database | null): void {
  let db = memtraceDb;
  let opened: Database.Database | null = null;
  try {
    const loaded = loadWorkerConfig(io.env, os.homedir());
    if (!loaded.ok) return;
    if (!db) {
      if (!fs.existsSync(loaded.config.dbFile)) return;
      db = opened = openDatabase(loaded.config.dbFile);
    }
    const telemetry = createTelemetry(
      { dataDir: loaded.config.dataDir, env: io.env, appVersion: APP_VERSION, provider: 'none' },
      { db, clock: systemClock, log: silentLogger, stderr: io.stderr },
    );
    telemetry.recordCounters('compaction_rollup', { origin }, repairCounters(report), systemClock.now());
  } catch {
    // Telemetry never breaks a command.
  } finally {
    opened?.close();
  }
}
