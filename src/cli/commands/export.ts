import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { makePrivateDir, openPrivateFile } from '../../data-dir/index.js';
import {
  exportSize,
  projectFileName,
  projectsOf,
  resolveProjectArgument,
  streamSink,
  writeJsonl,
  writeProjectMarkdown,
  type ExportCounts,
  type ExportFilter,
  type ExportSink,
} from '../../memory/index.js';
import { openMemoryStore } from '../memory-store.js';
import { createCountBar, stderrIsTerminal } from '../progress-bar.js';

const USAGE = `usage: memtrace export [--format jsonl|markdown] [--project P] [--session S] [--out PATH]

Writes the stored memory as portable files. jsonl (the default) holds one observation or session
summary per line and reads back with 'memtrace import' exactly; markdown is one readable document
per project. Without --out the export goes to stdout. Files are created readable by you only (0600).
The export is streamed (a store of any size, a page of rows at a time); on a terminal a jsonl
export shows its progress on stderr.

options:
  --format F      jsonl (default) or markdown
  --project P     only memory of project P: any checkout of its repository (the main one or a
                  worktree), else its path exactly (a trailing / is ignored)
  --session S     only memory of session S
  --out PATH      jsonl: the file to write; markdown: a directory, one <project>.md per project
  -h, --help      show this help`;

export const exportCommand: Command = {
  name: 'export',
  summary: 'the memory as portable files: jsonl (round-trips through import) or markdown',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      format: { type: 'string' },
      project: { type: 'string' },
      session: { type: 'string' },
      out: { type: 'string' },
    });
    const format = values.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'markdown') throw new UsageError(`--format must be jsonl or markdown, got '${format}'`);
    for (const flag of ['project', 'session', 'out'] as const) if (values[flag] === '') throw new UsageError(`--${flag} takes a value`);
    const out = values.out === undefined ? null : path.resolve(io.cwd, values.out);

    const memory = openMemoryStore(io, { create: false });
    try {
      const project = values.project === undefined ? null : memory ? resolveProjectArgument(memory.store.db, values.project, { cwd: io.cwd }) : values.project;
      const filter: ExportFilter = { project, sessionId: values.session ?? null };
      const db = memory?.store.db ?? null;
      const started = performance.now();
      const counts = format === 'jsonl' ? await exportJsonl(db, filter, out, io) : await exportMarkdown(db, filter, out, io);
      memory?.access.record('cli', { kind: 'export', items: counts.observations + counts.summaries, durationMs: performance.now() - started }, Date.now());
      if (out !== null)
        io.stdout.write(`exported ${counts.observations} observation(s) and ${counts.summaries} session summary(ies) to ${out} (${counts.bytes} bytes).\n`);
      return EXIT_OK;
    } finally {
      memory?.close();
    }
  },
};

const EMPTY: ExportCounts = { observations: 0, summaries: 0, bytes: 0 };
const stdoutSink =
  (io: CliIO): ExportSink =>
  async (chunk) =>
    void io.stdout.write(chunk);

async function toFile(file: string, write: (sink: ExportSink) => Promise<ExportCounts>): Promise<ExportCounts> {
  const stream = fs.createWriteStream('', { fd: openPrivateFile(file, 'w') });
  try {
    return await write(streamSink(stream));
  } finally {
    stream.end();
    await finished(stream);
  }
}

async function exportJsonl(db: Parameters<typeof writeJsonl>[0] | null, filter: ExportFilter, out: string | null, io: CliIO): Promise<ExportCounts> {
  const bar = db && stderrIsTerminal(io) ? createCountBar(io.stderr, { total: exportSize(db, filter), unit: 'rows', now: () => Date.now() }) : null;
  const write = (sink: ExportSink) => (db ? writeJsonl(db, filter, sink, bar ? () => bar.tick() : undefined) : Promise.resolve(EMPTY));
  try {
    return await (out === null ? write(stdoutSink(io)) : toFile(out, write));
  } finally {
    bar?.done();
  }
}

async function exportMarkdown(db: Parameters<typeof writeJsonl>[0] | null, filter: ExportFilter, out: string | null, io: CliIO): Promise<ExportCounts> {
  const total: ExportCounts = { ...EMPTY };
  const add = (c: ExportCounts) => {
    total.observations += c.observations;
    total.summaries += c.summaries;
    total.bytes += c.bytes;
  };
  if (out !== null) makePrivateDir(out);
  if (!db) return total;
  const used = new Set<string>();
  for (const project of projectsOf(db, filter)) {
    const write = (sink: ExportSink) => writeProjectMarkdown(db, project, filter, sink, Date.now());
    if (out === null) {
      add(await write(stdoutSink(io)));
      continue;
    }
    // Two paths can make the same file name (/a/b, /a-b): the second gets a number.
    const base = projectFileName(project);
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = base.replace(/\.md$/, `-${n}.md`);
    used.add(name);
    add(await toFile(path.join(out, name), write));
  }
  return total;
}
