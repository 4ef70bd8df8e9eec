import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type Command } from '../command.js';
import { resolveProjectArgument } from '../../memory/index.js';
import { createProjectResolver } from '../../worker/project-of.js';
import {
  classifyShareFailure,
  failureIncrements,
  createShareLedger,
  displayUrl,
  openShareDatabase,
  projectIdentity,
  setShareUrl,
  ShareConfigError,
  targetOf,
  type OpenShareDatabase,
} from '../../share/index.js';
import { openMemoryStore } from '../memory-store.js';
import { defaultLabel, shareCliContext, shareTelemetry } from '../share-context.js';

const USAGE = `usage: memtrace share add <postgres-url> [--project P] [--name LABEL]

Shares one repository's memory (default: the repository the current directory is in) with your
other machines and your team, through a Postgres database (13 or newer) you already run. The
first member's add creates memtrace's tables there; every later add to the same database joins.
Only observations and session summaries of this repository cross, already redacted, with paths
made relative to the repository (docs/sharing.md). A running worker starts syncing by itself.

The URL follows libpq: postgresql://[user[:password]@]host[:port]/dbname[?sslmode=…]. Without a
password in it, PGPASSWORD is used, then ~/.pgpass (or PGPASSFILE). It is kept in
DATA_DIR/share.json (0600) and never printed or logged with its password.

options:
  --project P     the repository to share: any checkout of it (default: the current directory's)
  --name LABEL    how this machine's records are named to the others (default user@host)
  -h, --help      show this help`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: a label must not hold control characters.
const BAD_LABEL = /[\u0000-\u001f\u007f]/;

export const shareAddCommand: Command = {
  name: 'add',
  summary: "share a repository's memory through a Postgres database",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { project: { type: 'string' }, name: { type: 'string' } }, { maxPositionals: 1 });
    const url = positionals[0];
    if (url === undefined || url.trim() === '') throw new UsageError('say which database: memtrace share add <postgres-url>');
    const context = shareCliContext(io);
    let display: string;
    try {
      display = displayUrl(targetOf(url, context.environment));
    } catch (error) {
      if (error instanceof ShareConfigError) throw new UsageError(error.message);
      throw error;
    }
    const label = (values.name ?? defaultLabel(io.env)).trim();
    if (label === '' || label.length > 100 || BAD_LABEL.test(label)) throw new UsageError('--name takes 1 to 100 printable characters');
    if (values.project === '') throw new UsageError('--project takes a value');

    const memory = openMemoryStore(io, { create: true })!;
    try {
      const { db } = memory.store;
      const project = values.project === undefined ? createProjectResolver()(io.cwd)! : resolveProjectArgument(db, values.project, { cwd: io.cwd });
      const identity = await projectIdentity(project);
      if (!identity.ok) {
        io.stderr.write(`memtrace share add: ${identity.reason}; nothing was changed.\n`);
        return EXIT_FAILURE;
      }
      let database: OpenShareDatabase;
      try {
        database = await openShareDatabase(url, context.environment);
      } catch (error) {
        const failure = classifyShareFailure(error);
        shareTelemetry(context, io, memory.store).counters(failureIncrements(failure.class));
        const why =
          failure.class === 'permission'
            ? `this role may not create memtrace's tables there (${failure.message}); let a role with CREATE on the database run the first share add, then every member joins`
            : failure.message;
        io.stderr.write(`memtrace share add: cannot use ${display}: ${why}; nothing was changed.\n`);
        return EXIT_FAILURE;
      }
      try {
        const ledger = createShareLedger(db);
        const before = ledger.get(project);
        setShareUrl(context.dataDir, project, url);
        const queued = ledger.add(
          { project, remoteProject: identity.identity, label, databaseDisplay: display, databaseId: database.schema.databaseId },
          Date.now(),
        );
        const say = (line: string) => io.stdout.write(`${line}\n`);
        say(`${before ? 'now sharing' : 'sharing'} ${project} as ${identity.identity} through ${display}, named ${label}`);
        say(
          database.schema.created
            ? "created memtrace's tables in the database: you are its first member; everyone who can connect to it joins with share add"
            : "joined the database's shared memory",
        );
        say(`${queued} record(s) of this machine queued to push; a running worker syncs in the background (memtrace share sync runs it now)`);
        if (identity.from === 'root-commit')
          say('note: the repository has no network remote, so its first commit names it: clones share it, copies with another history do not');
        if (database.connection.passwordSource === 'PGPASSWORD')
          say('note: the password came from PGPASSWORD: the worker needs it in its environment too, or put it in ~/.pgpass');
        return EXIT_OK;
      } finally {
        await database.connection.close();
      }
    } finally {
      memory.close();
    }
  },
};
