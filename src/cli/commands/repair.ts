import fs from 'node:fs';
import { resolveProjectArgument } from '../../memory/project-argument.js';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { commandGroup, EXIT_FAILURE, EXIT_OK, parseCommandArgs, parseIntegerFlag, UsageError, type CliIO, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { openDatabase } from '../../store/index.js';
import { createProviderFromEnv } from '../../providers/select.js';
import { createSummarizer } from '../../compaction/summarizer.js';
import { cannotSummarize } from '../../compaction/summary-contract.js';
import { applyRepairs, scanTarget, type RepairEntry, type RepairFinding, type RepairReport } from '../../compaction/repair/engine.js';
import { lcmRepairTarget } from '../../compaction/repair/lcm-target.js';
import { memtraceRepairTarget } from '../../compaction/repair/memtrace-target.js';
import { backupDatabase, DatabaseBusyError, isBusyError, probeWriteLock } from '../../compaction/repair/sqlite-file.js';
import type { RepairTarget } from '../../compaction/repair/target.js';
import { recordRepairTelemetry } from './repair-telemetry.js';

const SCOPE_HELP = `  --lcm FILE          work on a lossless-claw database instead of memtrace's own store
  --conversation ID   only this lossless-claw conversation (with --lcm)
  --project P         only this memtrace project (without --lcm)
  --json              print JSON
  -h, --help          show this help`;

const scopeOptions = {
  lcm: { type: 'string' as const },
  conversation: { type: 'string' as const },
  project: { type: 'string' as const },
  json: { type: 'boolean' as const },
};

interface Opened {
  db: Database.Database;
  file: string;
  target: RepairTarget;
  label: string;
  close(): void;
}

function openTarget(values: { lcm?: string; conversation?: string; project?: string }, io: CliIO, write: boolean, providerName: string): Opened {
  if (values.lcm !== undefined) {
    if (values.project !== undefined) throw new UsageError("--project is for memtrace's store; with --lcm use --conversation");
    const conversationId = parseIntegerFlag('conversation', values.conversation, { min: 0, max: Number.MAX_SAFE_INTEGER });
    const file = path.resolve(io.cwd, values.lcm);
    if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`);
    const db = new Database(file, { fileMustExist: true, readonly: !write });
    try {
      if (write) db.pragma('foreign_keys = ON');
      const target = lcmRepairTarget(db, file, conversationId === undefined ? {} : { conversationId });
      return { db, file, target, label: `lossless-claw database ${file}`, close: () => db.close() };
    } catch (error) {
      db.close();
      throw error;
    }
  }
  if (values.conversation !== undefined) throw new UsageError('--conversation needs --lcm FILE (a lossless-claw database)');
  const loaded = loadWorkerConfig(io.env, os.homedir());
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  const file = loaded.config.dbFile;
  if (!fs.existsSync(file)) throw new Error(`no memtrace database at ${file} (set MEMTRACE_DATA_DIR?)`);
  // The store's migrations only: never the worker's crash recovery, a worker may be running.
  const db = openDatabase(file);
  const target = memtraceRepairTarget(
    db,
    values.project === undefined ? {} : { project: resolveProjectArgument(db, values.project, { cwd: io.cwd }) },
    providerName,
  );
  return { db, file, target, label: `memtrace store ${file}`, close: () => db.close() };
}

function findingLine(f: RepairFinding): string {
  return `${f.id.padEnd(22)} ${f.kind.padEnd(10)} ${String(f.depth).padEnd(6)} ${String(f.tokens).padEnd(7)} ${f.reasons.join(', ')}`;
}

const scan: Command = {
  name: 'scan',
  summary: 'list fallback (truncation) summaries',
  usage: `usage: memtrace repair scan [--lcm FILE] [--conversation ID | --project P] [--json]

Lists fallback summaries: id, kind, depth, tokens and why each was flagged — a 'fallback'
level label, an 'emergency-fallback' model label, or a truncation marker where a fallback puts
it (at the end for [Truncated from N tokens], at the start for lossless-claw's fallback notes).
A marker merely quoted mid-text is not a fallback. Reads only; changes nothing.

options:
${SCOPE_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, scopeOptions);
    const opened = openOrReport(values, io, false, 'none');
    if (!opened) return EXIT_FAILURE;
    try {
      const findings = scanTarget(opened.target);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ target: opened.target.name, file: opened.file, found: findings.length, summaries: findings }, null, 2)}\n`);
      } else {
        io.stdout.write(`${findings.length} fallback summar${findings.length === 1 ? 'y' : 'ies'} in ${opened.label}\n`);
        if (findings.length > 0) {
          io.stdout.write(`${'id'.padEnd(22)} ${'kind'.padEnd(10)} ${'depth'.padEnd(6)} ${'tokens'.padEnd(7)} why\n`);
          for (const f of findings) io.stdout.write(`${findingLine(f)}\n`);
          io.stdout.write(`\nRe-summarize them: memtrace repair apply${values.lcm ? ` --lcm ${values.lcm}` : ''}\n`);
        }
      }
      return EXIT_OK;
    } finally {
      opened.close();
    }
  },
};

const apply: Command = {
  name: 'apply',
  summary: 're-summarize fallback summaries bottom-up, after a backup',
  usage: `usage: memtrace repair apply [--lcm FILE] [--conversation ID | --project P] [--max N] [--wait-ms N] [--json]

Re-summarizes fallback summaries bottom-up with the provider from the environment
(MEMTRACE_PROVIDER, ANTHROPIC_API_KEY, OPENAI_API_KEY …): leaves from their source messages,
condensed summaries from their sources as just repaired. A provider that cannot summarize (none
configured, or a replay file of observer recordings) is refused before the file is opened.
A rewrite is stored only when it is a summary: not empty, no truncation marker, no observer XML,
not the prompt given back, and shorter than its sources; otherwise nothing is written for it.
Each accepted rewrite, its token count and the lineage totals that depend on it are written in one
transaction. A backup (FILE.repair-<time>.bak) is taken first; repair refuses to start while
another process holds the database's write lock.

Exit code 0 when every fallback found was repaired, 1 otherwise.

options:
${SCOPE_HELP}
  --max N             re-summarize at most N summaries this run (default 50)
  --wait-ms N         how long to wait for the write lock (default 5000)`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { ...scopeOptions, max: { type: 'string' }, 'wait-ms': { type: 'string' } });
    const max = parseIntegerFlag('max', values.max, { min: 1, max: 1_000_000 }) ?? 50;
    const waitMs = parseIntegerFlag('wait-ms', values['wait-ms'], { min: 0, max: 600_000 }) ?? 5_000;
    // Refused before anything is opened: a provider that cannot summarize leaves the file byte-identical.
    const selected = createProviderFromEnv(io.env);
    if ('error' in selected) return refuse(io, selected.error);
    const refusal = cannotSummarize(selected.provider);
    if (refusal !== null) return refuse(io, refusal);
    const opened = openOrReport(values, io, true, selected.provider.name);
    if (!opened) return EXIT_FAILURE;
    try {
      probeWriteLock(opened.db, opened.file, waitMs);
      const findings = scanTarget(opened.target);
      if (findings.length === 0) {
        writeReport(io, values.json === true, { found: 0, repaired: 0, failed: 0, skipped: 0, entries: [] }, null, opened);
        return EXIT_OK;
      }
      const backup = backupDatabase(opened.db, opened.file, Date.now());
      io.stderr.write(`repair: backup written to ${backup}\n`);
      io.stderr.write(
        `repair: ${findings.length} fallback summar${findings.length === 1 ? 'y' : 'ies'} to re-summarize with ${selected.provider.name} (${selected.provider.model})\n`,
      );
      const report = await applyRepairs(opened.target, createSummarizer(selected.provider, opened.target.estimateTokens), {
        max,
        nowMs: () => Date.now(),
        onProgress: (entry, index, total) => io.stderr.write(`repair: [${index}/${total}] ${progressLine(entry)}\n`),
      });
      recordRepairTelemetry(io, opened.target.name === 'lcm' ? 'repair_lcm' : 'repair_memtrace', report, opened.target.name === 'memtrace' ? opened.db : null);
      writeReport(io, values.json === true, report, backup, opened);
      return report.repaired === report.found ? EXIT_OK : EXIT_FAILURE;
    } catch (error) {
      if (error instanceof DatabaseBusyError) {
        io.stderr.write(`memtrace repair: ${error.message}\n`);
        return EXIT_FAILURE;
      }
      if (isBusyError(error)) {
        io.stderr.write(
          `memtrace repair: stopped, another process took the write lock of ${opened.file}; summaries already repaired are committed, the rest unchanged. Run apply again when it is idle.\n`,
        );
        return EXIT_FAILURE;
      }
      throw error;
    } finally {
      opened.close();
    }
  },
};

function refuse(io: CliIO, reason: string): number {
  io.stderr.write(`memtrace repair: ${reason}; nothing was changed.\n`);
  return EXIT_FAILURE;
}

function openOrReport(values: { lcm?: string; conversation?: string; project?: string }, io: CliIO, write: boolean, providerName: string): Opened | null {
  try {
    return openTarget(values, io, write, providerName);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // A missing file, a file that is not a lossless-claw database, a store too new: say so, exit 1.
    if (error instanceof Error) {
      io.stderr.write(`memtrace repair: ${error.message}\n`);
      return null;
    }
    throw error;
  }
}

function progressLine(e: RepairEntry): string {
  const what = `${e.id} (${e.kind}, depth ${e.depth})`;
  if (e.outcome.status === 'repaired') return `${what}: repaired, ${e.tokens} → ${e.outcome.tokensAfter} tokens (${e.outcome.level})`;
  return `${what}: ${e.outcome.status}, ${e.outcome.reason.replace(/_/g, ' ')}`;
}

function writeReport(io: CliIO, json: boolean, report: RepairReport, backup: string | null, opened: Opened): void {
  if (json) {
    io.stdout.write(`${JSON.stringify({ target: opened.target.name, file: opened.file, backup, ...report }, null, 2)}\n`);
    return;
  }
  io.stdout.write(`${opened.label}: found ${report.found}, repaired ${report.repaired}, failed ${report.failed}, skipped ${report.skipped}\n`);
  if (backup) io.stdout.write(`backup: ${backup}\n`);
  const notDone = report.entries.filter((e) => e.outcome.status !== 'repaired');
  for (const e of notDone) io.stdout.write(`  ${progressLine(e)}\n`);
}

export const repairCommand: Command = commandGroup(
  'repair',
  "find and re-summarize fallback (truncation) summaries in memtrace's store or a lossless-claw database",
  [scan, apply],
);
