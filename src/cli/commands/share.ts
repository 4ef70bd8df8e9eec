import { commandGroup, EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { resolveProjectArgument } from '../../memory/index.js';
import { createProjectResolver } from '../../worker/project-of.js';
import {
  classifyShareFailure,
  createShareLedger,
  openShareDatabase,
  projectShareStatus,
  pushBatch,
  readShareStatus,
  readShareUrls,
  setShareUrl,
  syncIncrements,
  failureIncrements,
  syncProject,
  withdrawMachine,
  type ShareProjectState,
} from '../../share/index.js';
import { openMemoryStore } from '../memory-store.js';
import { countProgress, shareCliContext, shareTelemetry, type ShareCliContext } from '../share-context.js';
import { shareAddCommand } from './share-add.js';

const LIST_USAGE = `usage: memtrace share list [--json]

Every shared project: its database (without the password), this machine's name there, records
pushed, pulled and waiting, the last sync, and what is wrong, in one line.

options:
  --json       {"projects":[{project, remote_project, database, label, pushed, pulled, pending,
               withdrawn, removed_by_owner, refused, last_sync_at, last_error, status, line}]}
  -h, --help   show this help`;

const SYNC_USAGE = `usage: memtrace share sync [--project P] [--json]

Pushes this machine's waiting records and pulls the other members' new ones now (a progress bar
on a terminal), then prints the counts. Sessions go on meanwhile. Exits 1 with a one-line reason
when a database cannot be used; what waits stays queued.

options:
  --project P  only this shared project (any checkout of it)
  --json       {"pushed","pulled","pending"}
  -h, --help   show this help`;

const REMOVE_USAGE = `usage: memtrace share remove [--project P] [--forget-remote] [--force]

Stops sharing a project (default: the current directory's). Records already pulled stay in your
local memory (memtrace forget removes them). Records you forgot are withdrawn from the database
first; with --forget-remote, every record this machine pushed for the project is withdrawn too.

options:
  --project P       the shared project (any checkout of it)
  --forget-remote   withdraw this machine's records of the project from the database
  --force           stop sharing even when the database cannot be reached (what waits to be
                    withdrawn then stays in the database)
  -h, --help        show this help`;

/** The project a --project flag (or the current directory) names among the shared ones. */
function chosenProject(io: CliIO, db: Parameters<typeof resolveProjectArgument>[0], raw: string | undefined): string {
  if (raw === '') throw new UsageError('--project takes a value');
  return raw === undefined ? createProjectResolver()(io.cwd)! : resolveProjectArgument(db, raw, { cwd: io.cwd });
}

const listCommand: Command = {
  name: 'list',
  summary: 'shared projects: database, name, records pushed/pulled/waiting, last sync, what is wrong',
  usage: LIST_USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' } });
    const context = shareCliContext(io);
    const now = Date.now();
    const states = readShareStatus(context.dataDir, context.dbFile);
    if (values.json) {
      const projects = states.map((s) => {
        const status = projectShareStatus(s, now);
        return {
          project: s.project,
          remote_project: s.remoteProject,
          database: s.databaseDisplay,
          label: s.label,
          pushed: s.pushed,
          pulled: s.pulled,
          pending: s.pending,
          withdrawn: s.withdrawn,
          removed_by_owner: s.removedByOwner,
          refused: s.refused,
          last_sync_at: s.lastSyncAt === null ? null : new Date(s.lastSyncAt).toISOString(),
          last_error: s.lastError,
          status: status.status,
          line: status.line,
        };
      });
      io.stdout.write(`${JSON.stringify({ projects }, null, 2)}\n`);
      return EXIT_OK;
    }
    if (states.length === 0) {
      io.stdout.write("no project is shared; in a repository, 'memtrace share add <postgres-url>' shares it\n");
      return EXIT_OK;
    }
    for (const s of states) {
      const status = projectShareStatus(s, now);
      io.stdout.write(
        `${s.project}\n  ${status.status === 'ok' ? 'ok' : status.status.toUpperCase()}  ${status.line}\n  as ${s.label}, project ${s.remoteProject}\n`,
      );
    }
    return EXIT_OK;
  },
};

interface Totals {
  pushed: number;
  pulled: number;
  pending: number;
}

async function syncOne(context: ShareCliContext, io: CliIO, state: ShareProjectState, memory: NonNullable<ReturnType<typeof openMemoryStore>>, json: boolean) {
  const url = readShareUrls(context.dataDir).get(state.project);
  const telemetry = shareTelemetry(context, io, memory.store);
  const ledger = createShareLedger(memory.store.db);
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true && !json;
  try {
    if (url === undefined) throw new Error('its connection URL is missing from DATA_DIR/share.json; run memtrace share add again');
    const database = await openShareDatabase(url, context.environment);
    const pushBar = terminal ? countProgress(io.stderr, 'pushing') : null;
    const pullBar = terminal ? countProgress(io.stderr, 'pulling') : null;
    try {
      const outcome = await syncProject(
        {
          store: memory.store,
          ledger,
          database,
          machine: ledger.machineId(),
          nowMs: () => Date.now(),
          progress: terminal ? { push: (d, t) => pushBar?.update(d, t, d === t), pull: (d, t) => pullBar?.update(d, t, d === t) } : {},
        },
        state,
      );
      telemetry.counters(syncIncrements(outcome));
      telemetry.redactions(outcome.redactions);
      return { ok: true as const, outcome };
    } finally {
      pushBar?.done();
      pullBar?.done();
      await database.connection.close();
    }
  } catch (error) {
    const failure = classifyShareFailure(error);
    ledger.failed(state.project, failure, Date.now());
    telemetry.counters(failureIncrements(failure.class));
    return { ok: false as const, message: `${state.databaseDisplay}: ${failure.message}` };
  }
}

const syncCommand: Command = {
  name: 'sync',
  summary: 'push and pull now, with counts (a progress bar on a terminal)',
  usage: SYNC_USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { project: { type: 'string' }, json: { type: 'boolean' } });
    const context = shareCliContext(io);
    const memory = openMemoryStore(io, { create: false });
    if (!memory) {
      io.stderr.write("memtrace share sync: no project is shared; in a repository, 'memtrace share add <postgres-url>' shares it\n");
      return EXIT_FAILURE;
    }
    try {
      const ledger = createShareLedger(memory.store.db);
      let states = ledger.list();
      if (values.project !== undefined) {
        const project = chosenProject(io, memory.store.db, values.project);
        states = states.filter((s) => s.project === project);
        if (states.length === 0) {
          io.stderr.write(`memtrace share sync: ${project} is not shared (memtrace share list shows what is)\n`);
          return EXIT_FAILURE;
        }
      }
      if (states.length === 0) {
        io.stderr.write("memtrace share sync: no project is shared; in a repository, 'memtrace share add <postgres-url>' shares it\n");
        return EXIT_FAILURE;
      }
      const totals: Totals = { pushed: 0, pulled: 0, pending: 0 };
      const failures: string[] = [];
      for (const state of states) {
        const result = await syncOne(context, io, state, memory, values.json === true);
        if (result.ok) {
          totals.pushed += result.outcome.pushed;
          totals.pulled += result.outcome.pulled;
          totals.pending += result.outcome.pending;
          if (!values.json)
            io.stdout.write(
              `${state.project}: pushed ${result.outcome.pushed}, pulled ${result.outcome.pulled}, ${result.outcome.pending} waiting${result.outcome.removedByOwner ? `, ${result.outcome.removedByOwner} removed (withdrawn by their owner)` : ''}${result.outcome.refused ? `, ${result.outcome.refused} refused (not records)` : ''}\n`,
            );
        } else {
          totals.pending += ledger.get(state.project)?.pending ?? 0;
          failures.push(result.message);
        }
      }
      if (values.json) io.stdout.write(`${JSON.stringify(totals)}\n`);
      for (const message of failures) io.stderr.write(`memtrace share sync: cannot use ${message}; what waits stays queued\n`);
      return failures.length > 0 ? EXIT_FAILURE : EXIT_OK;
    } finally {
      memory.close();
    }
  },
};

const removeCommand: Command = {
  name: 'remove',
  summary: 'stop sharing a project (--forget-remote: withdraw its records from the database)',
  usage: REMOVE_USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { project: { type: 'string' }, 'forget-remote': { type: 'boolean' }, force: { type: 'boolean' } });
    const context = shareCliContext(io);
    const memory = openMemoryStore(io, { create: false });
    const project = memory ? chosenProject(io, memory.store.db, values.project) : (values.project ?? io.cwd);
    const ledger = memory ? createShareLedger(memory.store.db) : null;
    const state = ledger?.get(project) ?? null;
    if (!memory || !ledger || !state) {
      memory?.close();
      io.stderr.write(`memtrace share remove: ${project} is not shared (memtrace share list shows what is)\n`);
      return EXIT_FAILURE;
    }
    try {
      const forgetRemote = values['forget-remote'] === true;
      const withdrawals = (
        memory.store.db.prepare("SELECT uid FROM share_outbox WHERE project = ? AND op = 'withdraw' ORDER BY seq").all(project) as Array<{ uid: string }>
      ).map((r) => r.uid);
      let withdrawn = 0;
      if (forgetRemote || withdrawals.length > 0) {
        const url = readShareUrls(context.dataDir).get(project);
        try {
          if (url === undefined) throw new Error('its connection URL is missing from DATA_DIR/share.json');
          const database = await openShareDatabase(url, context.environment);
          try {
            const machine = ledger.machineId();
            for (let i = 0; i < withdrawals.length; i += 1_000)
              withdrawn += (
                await pushBatch(database.connection.client, {
                  project: state.remoteProject,
                  machine,
                  label: state.label,
                  records: [],
                  withdrawals: withdrawals.slice(i, i + 1_000),
                })
              ).withdrawn;
            if (forgetRemote) withdrawn += await withdrawMachine(database.connection.client, state.remoteProject, machine, state.label);
          } finally {
            await database.connection.close();
          }
        } catch (error) {
          const failure = classifyShareFailure(error);
          if (!values.force) {
            io.stderr.write(
              `memtrace share remove: cannot reach ${state.databaseDisplay} to withdraw ${forgetRemote ? "this machine's records" : `${withdrawals.length} forgotten record(s)`}: ${failure.message}; nothing was changed (run again when it answers, or add --force to stop sharing anyway)\n`,
            );
            return EXIT_FAILURE;
          }
          io.stderr.write(
            `memtrace share remove: ${state.databaseDisplay} could not be reached (${failure.message}); stopping anyway, --force: what waited to be withdrawn stays in the database\n`,
          );
        }
      }
      ledger.remove(project, { forgetPublished: forgetRemote });
      setShareUrl(context.dataDir, project, null);
      io.stdout.write(
        `stopped sharing ${project}${withdrawn > 0 ? `; ${withdrawn} record(s) of this machine withdrawn from the database` : ''}; records already pulled stay in your local memory (memtrace forget removes them)\n`,
      );
      return EXIT_OK;
    } finally {
      memory.close();
    }
  },
};

export const shareCommand: Command = commandGroup('share', "share a repository's memory with your machines and team through Postgres", [
  shareAddCommand,
  listCommand,
  syncCommand,
  removeCommand,
]);
