import readline from 'node:readline';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { applyForget, buildSearchQuery, ForgetRefusedError, planForget, resolveProjectArgument, type ForgetPlan } from '../../memory/index.js';
import { openMemoryStore } from '../memory-store.js';
import { parseIsoFlag } from '../time-flag.js';

const USAGE = `usage: memtrace forget <observation-id…> [--session S] [--project P] [--before ISO] [--match QUERY] [--dry-run] [--yes]

Removes memory everywhere it lives: the observations and session summaries, their entries in the
search index, the compacted history built from them (so no later session is given them as
context, and no export holds them), and the raw events they came from. --session removes the whole
session, its prompts included. Filters combine (all must hold); ids are added to what they select.
Deleted bytes are overwritten (SQLite secure_delete), the index is rebuilt and the write-ahead log
is truncated, so nothing forgotten stays readable in the database files.

options:
  --session S     every item of session S, and the session itself
  --project P     items of project P: any checkout of its repository (the main one or a
                  worktree), else its path exactly
  --before ISO    items created before this date or time
  --match QUERY   items holding every word of QUERY (words as search reads them)
  --dry-run       print what would go; change nothing
  --yes           do not ask; without it, forget asks on a terminal and refuses elsewhere
  -h, --help      show this help`;

export const forgetCommand: Command = {
  name: 'forget',
  summary: 'remove memory everywhere it lives (tables, search index, context, raw events)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        session: { type: 'string' },
        project: { type: 'string' },
        before: { type: 'string' },
        match: { type: 'string' },
        'dry-run': { type: 'boolean' },
        yes: { type: 'boolean' },
      },
      { maxPositionals: Number.MAX_SAFE_INTEGER },
    );
    const ids = positionals.map((p) => {
      if (!/^\d{1,15}$/.test(p) || Number(p) < 1) throw new UsageError(`observation ids are whole numbers, got '${p}'`);
      return Number(p);
    });
    for (const flag of ['session', 'project', 'match'] as const) if (values[flag] === '') throw new UsageError(`--${flag} takes a value`);
    if (values.match !== undefined && !buildSearchQuery(values.match).ok) throw new UsageError(`--match '${values.match}' has no words to search for`);
    const beforeMs = parseIsoFlag('before', values.before);
    if (ids.length === 0 && values.session === undefined && values.project === undefined && beforeMs === null && values.match === undefined) {
      throw new UsageError('say what to forget: observation ids, --session, --project, --before or --match');
    }

    const memory = openMemoryStore(io, { create: false });
    if (!memory) {
      io.stderr.write(
        ids.length > 0
          ? `memtrace forget: no observation ${ids.join(', ')}: nothing is stored yet; nothing was forgotten.\n`
          : 'memtrace forget: nothing is stored yet; nothing to forget.\n',
      );
      return ids.length > 0 ? EXIT_FAILURE : EXIT_OK;
    }
    try {
      let plan: ForgetPlan;
      try {
        plan = planForget(memory.store.db, {
          observationIds: ids,
          sessionId: values.session ?? null,
          project: values.project === undefined ? null : resolveProjectArgument(memory.store.db, values.project, { cwd: io.cwd }),
          beforeMs,
          match: values.match ?? null,
        });
      } catch (error) {
        if (!(error instanceof ForgetRefusedError)) throw error;
        io.stderr.write(`memtrace forget: ${error.message}; nothing was forgotten.\n`);
        return EXIT_FAILURE;
      }
      if (plan.items.length === 0 && plan.sessions.length === 0) {
        io.stdout.write('nothing matches; nothing was forgotten.\n');
        return EXIT_OK;
      }
      io.stdout.write(describePlan(plan, values['dry-run'] === true));
      if (values['dry-run']) return EXIT_OK;
      if (!values.yes) {
        const answer = await confirm(io, `forget these ${plan.items.length} item(s)? this cannot be undone [y/N] `);
        if (answer === 'no-terminal') {
          io.stderr.write('memtrace forget: not on a terminal and no --yes; nothing was forgotten.\n');
          return EXIT_FAILURE;
        }
        if (answer === 'no') {
          io.stdout.write('nothing was forgotten.\n');
          return EXIT_FAILURE;
        }
      }
      const started = performance.now();
      const result = await applyForget(memory.store.db, plan, { elapsedMs: () => performance.now(), rest: memory.rest });
      memory.access.record('cli', { kind: 'forget', items: result.observations + result.summaries, durationMs: performance.now() - started }, Date.now());
      io.stdout.write(
        `forgot ${result.observations} observation(s) and ${result.summaries} session summary(ies)` +
          `${result.compactedSummaries ? `, ${result.compactedSummaries} compacted summary(ies) built from them` : ''}` +
          `${result.rawEvents ? `, ${result.rawEvents} raw event(s)` : ''}${result.sessions ? `, ${result.sessions} session record(s)` : ''}.\n`,
      );
      io.stdout.write(
        result.checkpointed
          ? 'the database and its write-ahead log hold none of it any more.\n'
          : 'note: another process (the worker?) was reading the database, so the write-ahead log could not be truncated yet; the forgotten bytes leave it at the next checkpoint (the worker runs one when it stops).\n',
      );
      return EXIT_OK;
    } finally {
      memory.close();
    }
  },
};

function describePlan(plan: ForgetPlan, dryRun: boolean): string {
  const lines = [
    `${dryRun ? 'would forget' : 'to forget'}: ${plan.items.length} item(s)${plan.sessions.length ? ` and session ${plan.sessions.join(', ')}` : ''}${plan.compactedSummaries.length ? `, and ${plan.compactedSummaries.length} compacted summary(ies) built from them` : ''}`,
  ];
  const shown = plan.items.slice(0, 50);
  for (const i of shown)
    lines.push(`  ${i.kind === 'observation' ? `#${i.id}` : `summary ${i.id}`}  ${i.created_at.slice(0, 10)}  ${i.title.replace(/\s+/g, ' ').slice(0, 100)}`);
  if (plan.items.length > shown.length) lines.push(`  … and ${plan.items.length - shown.length} more`);
  if (dryRun) lines.push('dry run: nothing was changed.');
  return `${lines.join('\n')}\n`;
}

/** Asks on a terminal; anywhere else there is nobody to ask. */
async function confirm(io: CliIO, question: string): Promise<'yes' | 'no' | 'no-terminal'> {
  const stdin = io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (stdin.isTTY !== true) return 'no-terminal';
  const rl = readline.createInterface({ input: stdin, output: io.stdout as NodeJS.WritableStream });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(question, resolve));
    return /^y(es)?$/i.test(answer.trim()) ? 'yes' : 'no';
  } finally {
    rl.close();
  }
}
