import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type Command } from '../command.js';
import { importJsonl, type ImportDeps } from '../../memory/index.js';
import { openMemoryStore } from '../memory-store.js';
import { redactTextInto, type RedactionCounts } from '../../redaction/index.js';
import { runClaudeMemImport } from './import-claude-mem.js';

const USAGE = `usage: memtrace import <file.jsonl> [--json]
       memtrace import --from claude-mem [PATH] [--dry-run] [--json]

Reads a jsonl export (memtrace export) into this data dir. Every line is checked first: a
malformed line or an unknown type stores nothing and is counted as invalid (the first few are
named on stderr); a line whose id is already stored is skipped; every other line is stored with
its id and created_at as given. Exit code 0 when no line was invalid, else 1.

With --from claude-mem, reads the observations and session summaries of claude-mem's database
(default ~/.claude-mem/claude-mem.db) without changing it, also while its worker runs. Types map
to memtrace's (others become 'other', counted); a project's folder name becomes the path of the
known checkout with that name, else stays as given; every text is redacted. All in one
transaction: a file that is not claude-mem's, damaged or locked imports nothing. A second run
imports only what is new.

options:
  --from SOURCE   claude-mem (the only other memory tool read so far)
  --dry-run       with --from: print the counts, change nothing
  --json          print {"imported","skipped","invalid"}
  -h, --help      show this help`;

/**
 * The import command with its text-cleaning step passed in: secret redaction, counted by kind
 * (docs/secrets-and-retention.md), unless a test passes another.
 */
export function createImportCommand(makeSanitize: () => { sanitize: ImportDeps['sanitize']; counts: RedactionCounts } = redactingSanitizer): Command {
  return {
    name: 'import',
    summary: "read a jsonl export back in, or claude-mem's memory (--from claude-mem)",
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs(
        args,
        { json: { type: 'boolean' }, from: { type: 'string' }, 'dry-run': { type: 'boolean' } },
        { maxPositionals: 1 },
      );
      if (values.from !== undefined) {
        if (values.from !== 'claude-mem') throw new UsageError(`--from takes claude-mem, got '${values.from}'`);
        if (positionals[0] === '') throw new UsageError('give the claude-mem database to read, or leave it out for ~/.claude-mem/claude-mem.db');
        const { sanitize, counts } = makeSanitize();
        return runClaudeMemImport(positionals[0], { dryRun: values['dry-run'] === true, json: values.json === true }, io, {
          sanitize: sanitize ?? ((text) => text),
          counts,
        });
      }
      if (values['dry-run']) throw new UsageError('--dry-run is for --from claude-mem');
      if (positionals[0] === undefined || positionals[0] === '') throw new UsageError('give the jsonl file to import');
      const file = path.resolve(io.cwd, positionals[0]);
      let input: fs.ReadStream;
      try {
        const stat = fs.statSync(file);
        if (!stat.isFile()) throw Object.assign(new Error(), { code: 'EISDIR' });
        input = fs.createReadStream(file);
      } catch (error) {
        io.stderr.write(`memtrace import: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); nothing was imported.\n`);
        return EXIT_FAILURE;
      }
      const memory = openMemoryStore(io, { create: true })!;
      try {
        const lines = readline.createInterface({ input, crlfDelay: Infinity });
        const { sanitize, counts: redactions } = makeSanitize();
        const started = performance.now();
        const report = await importJsonl(memory.store, lines, { sanitize, nowMs: Date.now(), rest: memory.rest });
        memory.access.record(
          'cli',
          { kind: 'import', imported: report.imported, invalid: report.invalid, durationMs: performance.now() - started },
          Date.now(),
        );
        memory.access.redacted?.(redactions, Date.now());
        for (const p of report.problems) io.stderr.write(`memtrace import: line ${p.line}: ${p.reason}; not imported\n`);
        if (report.invalid > report.problems.length)
          io.stderr.write(`memtrace import: … and ${report.invalid - report.problems.length} more invalid line(s)\n`);
        const counts = { imported: report.imported, skipped: report.skipped, invalid: report.invalid };
        io.stdout.write(
          values.json
            ? `${JSON.stringify(counts)}\n`
            : `imported ${counts.imported}, skipped ${counts.skipped} (id already stored), invalid ${counts.invalid} — into ${memory.config.dbFile}\n`,
        );
        return report.invalid === 0 ? EXIT_OK : EXIT_FAILURE;
      } finally {
        input.destroy();
        memory.close();
      }
    },
  };
}

function redactingSanitizer() {
  const counts: RedactionCounts = {};
  return { sanitize: (text: string) => redactTextInto(text, counts), counts };
}

export const importCommand = createImportCommand();
