import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, type CliIO } from '../command.js';
import { importClaudeMem, PeerDatabaseError, type ClaudeMemImportReport } from '../../memory/claude-mem/index.js';
import type { MemoryStore } from '../../memory/memory-store.js';
import type { RedactionCounts } from '../../redaction/index.js';
import { openMemoryStore } from '../memory-store.js';

/** Where claude-mem keeps its database unless told otherwise. */
function defaultClaudeMemPath(io: CliIO): string {
  return path.join(io.env.HOME || os.homedir(), '.claude-mem', 'claude-mem.db');
}

const n = (x: number) => x.toLocaleString('en-US');
const PROGRESS_REDRAW_MS = 100;

/**
 * `memtrace import --from claude-mem [PATH] [--dry-run] [--json]` (docs/memory.md#memory-you-already-have).
 * A refused file (missing, not claude-mem's, damaged, locked) is one line and exit 1, with nothing
 * imported; invalid records are named on stderr and make the exit code 1, as `import` does.
 */
export async function runClaudeMemImport(
  given: string | undefined,
  options: { dryRun: boolean; json: boolean },
  io: CliIO,
  sanitizer: { sanitize(text: string): string; counts: RedactionCounts },
): Promise<number> {
  const file = given === undefined ? defaultClaudeMemPath(io) : path.resolve(io.cwd, given);
  let memory: MemoryStore | null = null;
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true && !options.json;
  let drawnAt = 0;
  let drew = false;
  let report: ClaudeMemImportReport;
  try {
    report = importClaudeMem(
      () => {
        memory = openMemoryStore(io, { create: !options.dryRun });
        return memory?.store ?? null;
      },
      file,
      {
        dryRun: options.dryRun,
        nowMs: Date.now(),
        sanitize: sanitizer.sanitize,
        onProgress: (done, total) => {
          if (!terminal || (Date.now() - drawnAt < PROGRESS_REDRAW_MS && done < total)) return;
          drawnAt = Date.now();
          drew = true;
          io.stderr.write(`\rreading claude-mem: ${n(done)} of ${n(total)} records (${total > 0 ? Math.floor((done / total) * 100) : 100}%) `);
        },
      },
    );
  } catch (error) {
    if (drew) io.stderr.write('\n');
    (memory as MemoryStore | null)?.close();
    if (!(error instanceof PeerDatabaseError)) throw error;
    io.stderr.write(`memtrace import: ${error.message}; nothing was imported.\n`);
    return EXIT_FAILURE;
  }
  if (drew) io.stderr.write('\n');
  const opened = memory as MemoryStore | null;
  try {
    if (!options.dryRun && opened) {
      opened.access.record('cli', { kind: 'import', imported: report.imported, invalid: report.invalid }, Date.now());
      opened.access.redacted?.(sanitizer.counts, Date.now());
    }
  } finally {
    opened?.close();
  }
  for (const p of report.problems) io.stderr.write(`memtrace import: claude-mem ${p.key}: ${p.reason}; not imported\n`);
  if (report.invalid > report.problems.length) io.stderr.write(`memtrace import: … and ${n(report.invalid - report.problems.length)} more invalid record(s)\n`);
  const counts = { imported: report.imported, skipped: report.skipped, invalid: report.invalid };
  io.stdout.write(options.json ? `${JSON.stringify(counts)}\n` : describe(report, file, options.dryRun, opened?.config.dbFile ?? null));
  return report.invalid === 0 ? EXIT_OK : EXIT_FAILURE;
}

function describe(r: ClaudeMemImportReport, file: string, dryRun: boolean, dbFile: string | null): string {
  const lines: string[] = [];
  if (r.imported === 0 && r.skipped > 0) {
    lines.push(
      `nothing new to import: all ${n(r.skipped)} record(s) of ${file} were imported before (imported 0, skipped ${n(r.skipped)}, invalid ${n(r.invalid)}).`,
    );
  } else {
    const what = `${n(r.observations)} observation(s) and ${n(r.summaries)} session summary(ies) from claude-mem (${file})`;
    lines.push(
      dryRun
        ? `would import ${what}; skip ${n(r.skipped)} already imported; ${n(r.invalid)} invalid. Nothing was changed (--dry-run).`
        : `imported ${what}${dbFile ? ` into ${dbFile}` : ''}; skipped ${n(r.skipped)} already imported; invalid ${n(r.invalid)}.`,
    );
  }
  if (r.unknownTypes > 0)
    lines.push(`  ${n(r.unknownTypes)} observation(s) of a type memtrace does not have ${dryRun ? 'would be' : 'were'} stored as 'other'.`);
  for (const p of r.projects) {
    if (p.to === 'kept') lines.push(`  project '${p.name}' kept as given (no known checkout has that name)`);
    else if (p.to === 'ambiguous') lines.push(`  project '${p.name}' kept as given (several known checkouts have that name)`);
    else lines.push(`  project '${p.name}' → ${p.to}`);
  }
  return `${lines.join('\n')}\n`;
}
