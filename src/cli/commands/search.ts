import { EXIT_OK, parseCommandArgs, parseIntegerFlag, UsageError, type Command } from '../command.js';
// The two modules a search needs, not the whole memory folder: every search is a process start.
import { buildSearchQuery } from '../../memory/query.js';
import { createMemorySearch, MAX_SEARCH_LIMIT, type SearchHit } from '../../memory/search.js';
import { resolveProjectArgument } from '../../memory/project-argument.js';
import { OBSERVATION_TYPES, type ObservationType } from '../../vocabulary/observation.js';
import { openMemoryStore } from '../memory-store.js';
import { parseIsoFlag } from '../time-flag.js';

const TYPES = [...OBSERVATION_TYPES, 'summary'] as const;

const USAGE = `usage: memtrace search <query…> [--project P] [--type T] [--since ISO] [--limit N] [--json]

Ranked full-text search over the stored observations and session summaries (best first). Any
text is a valid query: quotes, brackets, '*', AND, NEAR( are searched as words. Write the question
in your own words; a result needs to share only some of them. '--' ends the options.

options:
  --project P     only memory of project P: any checkout of its repository (the main one or a
                  worktree), else its path exactly (a trailing / is ignored)
  --type T        ${TYPES.join(' | ')}
  --since ISO     only memory created at or after this date or time (2026-01-31, 2026-01-31T12:00:00Z)
  --limit N       at most N results (default 10, at most ${MAX_SEARCH_LIMIT})
  --json          {"results":[{"id","kind","type","title","snippet","session_id","project","created_at","score"}]}
  -h, --help      show this help`;

export const searchCommand: Command = {
  name: 'search',
  summary: 'ranked full-text search over observations and session summaries',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { project: { type: 'string' }, type: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      { maxPositionals: Number.MAX_SAFE_INTEGER },
    );
    const text = positionals.join(' ');
    if (text.trim() === '') throw new UsageError('give a query to search for');
    const query = buildSearchQuery(text);
    if (!query.ok) throw new UsageError(query.reason);
    if (values.type !== undefined && !(TYPES as readonly string[]).includes(values.type))
      throw new UsageError(`--type must be one of ${TYPES.join(', ')}, got '${values.type}'`);
    if (values.project === '') throw new UsageError('--project takes a project path');
    const limit = parseIntegerFlag('limit', values.limit, { min: 1, max: MAX_SEARCH_LIMIT }) ?? 10;
    const sinceMs = parseIsoFlag('since', values.since);

    const memory = openMemoryStore(io, { create: false });
    let results: SearchHit[] = [];
    if (memory) {
      try {
        const started = performance.now();
        results = createMemorySearch(memory.store.db).search(text, {
          project: values.project === undefined ? null : resolveProjectArgument(memory.store.db, values.project, { cwd: io.cwd }),
          type: (values.type as ObservationType | 'summary' | undefined) ?? null,
          sinceMs,
          limit,
        });
        memory.access.record('cli', { kind: 'search', durationMs: performance.now() - started, results: results.length }, Date.now());
      } finally {
        memory.close();
      }
    }
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ results })}\n`);
      return EXIT_OK;
    }
    if (results.length === 0) {
      io.stdout.write(memory ? 'no memory matches.\n' : 'no memory stored yet.\n');
      return EXIT_OK;
    }
    io.stdout.write(`${results.map(renderHit).join('\n\n')}\n`);
    return EXIT_OK;
  },
};

function renderHit(h: SearchHit): string {
  const ref = h.kind === 'observation' ? `#${h.id}` : `summary ${h.id}`;
  return [
    `${ref.padEnd(8)} ${h.type.padEnd(9)} ${h.created_at.slice(0, 10)}  ${h.title.replace(/\s+/g, ' ')}`,
    ...(h.snippet ? [`         ${h.snippet}`] : []),
    `         session ${h.session_id}${h.project ? ` · ${h.project}` : ''} · score ${h.score}`,
  ].join('\n');
}
