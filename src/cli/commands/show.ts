import os from 'node:os';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { openStore } from '../../store/index.js';
import { observationView, renderObservation, renderSession, toolEventView } from '../../memory/provenance-view.js';

const USAGE = `usage: memtrace show <observation-id> [--json]
       memtrace show --session <session-id> [--json]

Shows an observation with its provenance — the queue messages and tool events it came from
(tool name and a short input preview), the observer's provider, model and prompt version — and
what checking each of its claims found (commits in the repository, files the session's tool
events wrote). --session lists a session's tool events (failures with their error and exit code),
observations and summaries the same way.`;

export const showCommand: Command = {
  name: 'show',
  summary: "an observation (or a session's memory) with its provenance and claim checks",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { session: { type: 'string' }, json: { type: 'boolean' } }, { maxPositionals: 1 });
    const id = positionals[0];
    if ((id === undefined) === (values.session === undefined)) throw new UsageError('give an observation id or --session <id>, not both');
    if (id !== undefined && !/^\d{1,12}$/.test(id)) throw new UsageError(`observation ids are whole numbers, got '${id}'`);
    const loaded = loadWorkerConfig(io.env, io.env.HOME || os.homedir());
    if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
    const store = openStore(loaded.config.dbFile);
    try {
      if (id !== undefined) {
        const observation = store.observations.get(Number(id));
        if (!observation) {
          io.stderr.write(`memtrace show: no observation ${id} in ${loaded.config.dbFile}\n`);
          return EXIT_FAILURE;
        }
        const view = observationView(observation, store.toolEvents.byQueueIds(observation.sourceMessageIds));
        io.stdout.write(`${values.json ? JSON.stringify(view, null, 2) : renderObservation(view)}\n`);
        return EXIT_OK;
      }
      const session = store.sessions.get(values.session!);
      if (!session) {
        io.stderr.write(`memtrace show: no session '${values.session}' in ${loaded.config.dbFile}\n`);
        return EXIT_FAILURE;
      }
      const views = store.observations.forSession(session.sessionId).map((o) => observationView(o, store.toolEvents.byQueueIds(o.sourceMessageIds)));
      const summaries = store.summaries.forSession(session.sessionId);
      const prompts = store.sessions.prompts(session.sessionId);
      const toolEvents = store.toolEvents.forSession(session.sessionId).map(toolEventView);
      if (values.json) io.stdout.write(`${JSON.stringify({ session, prompts, tool_events: toolEvents, observations: views, summaries }, null, 2)}\n`);
      else io.stdout.write(`${renderSession(session, views, summaries, prompts.length, toolEvents)}\n`);
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};
