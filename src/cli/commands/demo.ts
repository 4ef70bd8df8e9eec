import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, type CliIO, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { createReplayProvider } from '../../providers/index.js';
import { createFileLogger } from '../file-logger.js';
import { startWorker, type RunningWorker } from '../../worker/runtime.js';
import { runHook } from '../../hook/hook-entry.js';
import { createProjectResolver } from '../../worker/project-of.js';
import { readAuthToken } from '../../data-dir/index.js';
import { waitForStopSignal } from '../../stop-signal.js';
import { startCollector, type RunningCollector } from '../../fleet/collector/index.js';
import { simulateFleet } from '../../fleet/dashboards/index.js';

const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../demo');

interface DemoSession {
  session_id: string;
  cwd: string;
  prompt: string;
  events: Array<{ tool_use_id: string; tool_name: string; tool_input: unknown; tool_response: unknown }>;
  last_assistant_message: string;
}

const USAGE = `usage: memtrace demo [--data-dir DIR] [--keep] [--serve | --no-serve]

The end-to-end demo on embedded defaults: a local collector (the fleet dashboard) and a worker
with SQLite and the replay provider (recorded observer replies, no keys, no network); a sample
Claude Code session played through the hook API; then what was stored, the context the next
session would get, and the rollup the worker sent to the local collector.

options:
  --data-dir DIR   where to keep the databases (default: a fresh temporary directory)
  --keep           keep the temporary directory afterwards (its path is printed)
  --serve          keep the dashboard up until Ctrl+C (default when stdout is a terminal)
  --no-serve       exit when the demo is done
  -h, --help       show this help`;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'the end-to-end demo on embedded defaults (SQLite, replay provider)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      'data-dir': { type: 'string' },
      keep: { type: 'boolean' },
      serve: { type: 'boolean' },
      'no-serve': { type: 'boolean' },
    });
    const serve = values['no-serve'] ? false : (values.serve ?? Boolean((io.stdout as { isTTY?: boolean }).isTTY));
    const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-demo-'));
    const say = (line: string) => io.stdout.write(`${line}\n`);
    const session = JSON.parse(fs.readFileSync(path.join(DEMO_DIR, 'session.json'), 'utf8')) as DemoSession;
    const loaded = loadWorkerConfig({ ...io.env, MEMTRACE_PORT: '0' }, os.homedir(), { dataDir });
    if (!loaded.ok) {
      io.stderr.write(`memtrace demo: ${loaded.errors.join('; ')}\n`);
      return EXIT_FAILURE;
    }
    let worker: RunningWorker | undefined;
    let collector: RunningCollector | undefined;
    try {
      say('[1/6] starting the local collector and filling it with a simulated mixed-version fleet');
      collector = await startCollector({ dbFile: path.join(dataDir, 'collector.db'), port: 0 });
      await collector.store.insert(simulateFleet({ seed: 42, nowMs: Date.now() }));
      say(`      dashboard: ${collector.url}/dashboard`);
      // Telemetry goes to the local collector only, whatever the shell has configured.
      const env: Record<string, string | undefined> = {
        ...io.env,
        MEMTRACE_PROVIDER: 'replay',
        MEMTRACE_TELEMETRY: io.env.DO_NOT_TRACK ? undefined : '1',
        MEMTRACE_POSTHOG_KEY: 'local-demo',
        MEMTRACE_POSTHOG_HOST: collector.url,
      };
      say(`[2/6] starting a worker (SQLite in ${dataDir}, replay provider)`);
      worker = await startWorker({
        config: loaded.config,
        env,
        provider: createReplayProvider({ file: path.join(DEMO_DIR, 'replay.jsonl') }),
        log: createFileLogger(dataDir, { write: () => true }),
        stderr: io.stderr,
        loop: { concurrency: 2 },
      });
      say(`      listening on ${worker.url}`);
      const hook = hookRunner(io, worker.port, dataDir);

      say(`[3/6] playing session ${session.session_id}: "${session.prompt}" (${session.events.length} tool events)`);
      await hook('session-start', { session_id: session.session_id, cwd: session.cwd, hook_event_name: 'SessionStart', source: 'startup' });
      await hook('user-prompt-submit', { session_id: session.session_id, cwd: session.cwd, hook_event_name: 'UserPromptSubmit', prompt: session.prompt });
      for (const [i, event] of session.events.entries()) {
        await hook('post-tool-use', { session_id: session.session_id, cwd: session.cwd, hook_event_name: 'PostToolUse', ...event });
        say(`      ${String(i + 1).padStart(2)}. ${event.tool_name.padEnd(5)} ${summarizeInput(event.tool_input)}`);
      }
      await hook('stop', { session_id: session.session_id, cwd: session.cwd, hook_event_name: 'Stop', last_assistant_message: session.last_assistant_message });

      say('[4/6] the observer reads the turn: its tool events and its end, in one call');
      await waitForDrain(worker, (depth) => say(`      ${depth} message(s) left`));
      const spend = worker.store.observerCalls.ofSession(session.session_id);
      say(
        `      ${spend.calls} observer call(s) for ${spend.events} tool event(s): ${spend.tokensIn} tokens in, ${spend.tokensOut} out (recorded replies; docs/observer.md has the figures of a live run)`,
      );
      await hook('session-end', { session_id: session.session_id, cwd: session.cwd, hook_event_name: 'SessionEnd', reason: 'exit' });

      say('[5/6] stored memory');
      // Memory is kept per repository root (or the full path outside a repository).
      const project = createProjectResolver()(session.cwd);
      const observations = worker.store.observations.recentForProject(project, 50).reverse();
      for (const o of observations) say(`      [${o.type}] ${o.title}  (model ${o.model}, from message ${o.sourceMessageIds.join(',')})`);
      const summary = worker.store.summaries.latestForProject(project);
      if (summary) say(`      summary: ${summary.completed}`);
      say(
        `      ${observations.length} observation(s), ${summary ? 1 : 0} summary, each naming the tool events it came from (a reply that does not parse is dropped; see ${path.join(dataDir, 'logs', 'worker.log')})`,
      );

      say('[6/6] context the next session in this project starts with:');
      const context = await fetch(`${worker.url}/api/context/inject?cwd=${encodeURIComponent(session.cwd)}&budget_tokens=1200`, {
        headers: { authorization: `Bearer ${readAuthToken(dataDir)}` },
      }).then((r) => r.text());
      say(context.replace(/^/gm, '      | '));

      const stopping = worker;
      worker = undefined;
      await stopping.stop(); // flushes the rollups and drains them to the collector
      const sent = collector
        .sqlite!.db.prepare(
          "SELECT json(properties) AS p FROM events WHERE event = 'observer_turn_rollup' AND json_extract(properties, '$.provider') = 'replay'",
        )
        .get() as { p: string } | undefined;
      if (sent) {
        const p = JSON.parse(sent.p) as Record<string, number | string>;
        say('telemetry: the one observer_turn_rollup this session sent to the local collector (scrubbed, typed, no text):');
        say(
          `      turns ${p.count} over ${p.tool_events_observed} tool event(s): parsed ${p.turns_parsed}, dropped ${p.turns_dropped} (idle ${p.invalid_class_idle}, prose ${p.invalid_class_prose}); observations ${p.observations_created}; tokens in/out ${p.total_tokens_input ?? 'unknown'}/${p.total_tokens_output ?? 'unknown'}; usage unknown on ${p.turns_usage_unknown} turn(s)`,
        );
      } else say('telemetry: off (DO_NOT_TRACK); nothing was accumulated or sent');
      say(`dashboard (the fleet's poisoned slice decaying as installs upgrade): ${collector.url}/dashboard`);
      if (serve) {
        say('serving the dashboard — press Ctrl+C to stop');
        await waitForStopSignal();
      }
    } catch (error) {
      io.stderr.write(`memtrace demo: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_FAILURE;
    } finally {
      await worker?.stop();
      await collector?.close();
    }
    if (values['data-dir'] || values.keep)
      say(`kept ${dataDir}: MEMTRACE_DATA_DIR=${dataDir} npx telemetry preview; memtrace dashboards report --db ${path.join(dataDir, 'collector.db')}`);
    if (!values['data-dir'] && !values.keep) fs.rmSync(dataDir, { recursive: true, force: true });
    return EXIT_OK;
  },
};

function hookRunner(io: CliIO, port: number, dataDir: string) {
  return async (name: string, input: Record<string, unknown>) => {
    let stderr = '';
    const code = await runHook([name], {
      ...io,
      stdin: (await import('node:stream')).Readable.from([Buffer.from(JSON.stringify(input))]),
      stdout: { write: () => true },
      stderr: {
        write: (s: string) => {
          stderr += s;
          return true;
        },
      },
      env: { ...io.env, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(port), MEMTRACE_HOOK_TIMEOUT_MS: '5000' },
    });
    if (code !== 0 || stderr !== '') throw new Error(`hook ${name} failed: ${stderr.trim()}`);
  };
}

async function waitForDrain(worker: RunningWorker, progress: (depth: number) => void): Promise<void> {
  let last = -1;
  for (let waited = 0; waited < 30_000; waited += 100) {
    const depth = worker.store.queue.depth();
    if (depth !== last) progress(depth);
    last = depth;
    if (depth === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the observer did not finish the queue within 30 s');
}

function summarizeInput(input: unknown): string {
  const record = (input ?? {}) as Record<string, unknown>;
  const value = record.command ?? record.file_path ?? record.pattern ?? '';
  return String(value).slice(0, 70);
}
