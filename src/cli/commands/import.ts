import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type Command } from '../command.js';
import { importJsonl, type ImportDeps } from '../../memory/index.js';
import { openMemoryStore } from '../memory-store.js';
import { redactTextInto, type RedactionCounts } from '../../redaction/index.js';

const USAGE = `usage: memtrace import <file.jsonl> [--json]

Reads a jsonl export (memtrace export) into this data dir. Every line is checked first: a
malformed line or an unknown type stores nothing and is counted as invalid (the first few are
named on stderr); a line whose id is already stored is skipped; every other line is stored with
its id and created_at as given. Exit code 0 when no line was invalid, else 1.

options:
  --json          print {"imported","skipped","invalid"}
  -h, --help      show this help`;

/**
 * The import command with its text-cleaning step passed in: secret redaction, counted by kind
 * (docs/secrets-and-retention.md), unless a test passes another.
 */
export function createImportCommand(makeSanitize: () => { sanitize: ImportDeps['sanitize']; counts: RedactionCounts } = redactingSanitizer): Command {
  return {
    name: 'import',
    summary: 'read a jsonl export back in (ids kept; existing ids skipped; bad lines counted)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, { maxPositionals: 1 });
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
        const report = await importJsonl(memory.store, lines, { sanitize, nowMs: Date.now() });
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
