import os from 'node:os';
import path from 'node:path';
import { DEFAULT_WATCH_CONFIG, defaultHostTranscriptRoots, defaultProjectsDir } from '../../mining/index.js';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parseIntegerFlag, UsageError, type Command } from '../command.js';
import { dataDirFromEnv, loadWorkerConfig } from '../../config.js';
import { chooseLiveObserver } from '../../providers/index.js';
import { createFileLogger } from '../file-logger.js';
import { startWorker, type RunningWorker } from '../../worker/runtime.js';
import { waitForStopSignal } from '../../stop-signal.js';
import { DataDirError, preparePrivateDataDir, recordStartFailure, WorkerRunningError, type StartFailure } from '../../data-dir/index.js';
import { StoreTooNewError } from '../../store/index.js';
import type { Logger } from '../../log.js';
import { APP_VERSION } from '../../version.js';
import { classifyStartFailure, configFailure, type StartContext } from '../../worker/start-failure.js';
import { HandOverTimeoutError } from '../../worker/lock-take-over.js';
import { MEMTRACE_BIN } from '../memtrace-bin.js';
import { runWorkerControl, WORKER_CONTROL_USAGE } from './worker-control.js';

const USAGE = `usage: memtrace worker [--port N] [--concurrency N] [--watch [--watch-dir DIR]]
       memtrace worker start|stop|status  (the worker in the background; see below)

Runs the worker in the foreground: the HTTP API for the agent's hooks (127.0.0.1 only),
the observer loop and telemetry. Stop it with Ctrl+C; in-flight messages are released,
rollups flushed and telemetry drained within a few seconds.

options:
  --port N          port to listen on (default MEMTRACE_PORT or 37877; 0 picks a free port)
  --concurrency N   observer calls at once across sessions (default 2)
  --watch           also mine every agent's transcripts in their default folders, as
                    'memtrace mine' does: Claude Code's, Gemini CLI's (~/.gemini/tmp), Codex's
                    ($CODEX_HOME/sessions) and Copilot CLI's ($COPILOT_HOME/session-state); every
                    60 s, files idle for 2 min, into the same queue (calls the hooks delivered are
                    not observed twice)
  --watch-dir DIR   Claude Code's transcripts folder to watch instead of its default (implies
                    --watch; default $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)
  -h, --help        show this help

environment: MEMTRACE_DATA_DIR, MEMTRACE_PORT, MEMTRACE_PROVIDER (anthropic|openai|claude-code|
gemini-cli|codex|opencode|copilot|pi|replay|none; default: anthropic with ANTHROPIC_API_KEY, openai with OPENAI_API_KEY or
OPENAI_BASE_URL, else the agent CLI of each session's host when it is on PATH, with your own login),
ANTHROPIC_API_KEY, OPENAI_API_KEY, MEMTRACE_MODEL, MEMTRACE_REPLAY_FILE, MEMTRACE_OBSERVER_BUDGET_TOKENS
(1000000: observer input + output tokens per UTC day, never exceeded; past it events wait),
MEMTRACE_RAW_RETENTION_DAYS (30: raw data kept this many days after processing), MEMTRACE_MAX_DB_MB
(2048: the store's size budget), telemetry switches (see 'memtrace telemetry status').

${WORKER_CONTROL_USAGE}`;

/** One line a user can act on, for the ways a start fails (the same words `worker status` and the next SessionStart show). */
export function startFailure(error: unknown, ctx: StartContext): { line: string; failure: StartFailure | null } {
  if (error instanceof WorkerRunningError || error instanceof HandOverTimeoutError) return { line: error.message, failure: null };
  const failure = classifyStartFailure(error, ctx);
  // These name their own fix already.
  if (error instanceof DataDirError || error instanceof StoreTooNewError) return { line: error.message, failure };
  if (failure.reason === 'port') return { line: `port ${ctx.port} is already in use by another program; set MEMTRACE_PORT or --port`, failure };
  return { line: `${failure.detail}; ${failure.fix}`, failure };
}

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run the worker (foreground), or start|stop|status it in the background',
  usage: USAGE,
  async run(args, io) {
    const action = args[0];
    if (action === 'start' || action === 'stop' || action === 'status') return runWorkerControl(action, args.slice(1), io);
    const { values } = parseCommandArgs(args, {
      port: { type: 'string' },
      concurrency: { type: 'string' },
      watch: { type: 'boolean' },
      'watch-dir': { type: 'string' },
    });
    if (values['watch-dir'] === '') throw new UsageError('--watch-dir needs a folder');
    const home = io.env.HOME || os.homedir();
    const watchDir = values['watch-dir'] !== undefined ? path.resolve(io.cwd, values['watch-dir']) : values.watch ? defaultProjectsDir(io.env, home) : null;
    const hostDirs = defaultHostTranscriptRoots(io.env, home);
    const port = parseIntegerFlag('port', values.port, { min: 0, max: 65535 });
    const concurrency = parseIntegerFlag('concurrency', values.concurrency, { min: 1, max: 64 }) ?? 2;

    const loaded = loadWorkerConfig(io.env, os.homedir(), port === undefined ? {} : { port });
    const dataDir = loaded.ok ? loaded.config.dataDir : dataDirFromEnv(io.env, os.homedir());
    let log: Logger;
    try {
      preparePrivateDataDir(dataDir);
      log = createFileLogger(dataDir, io.stderr);
    } catch (error) {
      io.stderr.write(`memtrace worker: ${error instanceof DataDirError ? error.message : `could not start: ${String(error)}`}\n`);
      return EXIT_FAILURE;
    }
    // Every start is in the log, so a loop of them would show (docs/interfaces.md#upgrades).
    log.info(`worker starting, version ${APP_VERSION}, pid ${process.pid}`);
    const refuse = (failure: StartFailure | null, lines: readonly string[]) => {
      for (const line of lines) io.stderr.write(`memtrace worker: ${line}\n`);
      if (failure === null) return EXIT_FAILURE;
      log.info(`worker could not start, version ${APP_VERSION}, pid ${process.pid}: ${failure.reason}`, { detail: failure.detail, fix: failure.fix });
      try {
        recordStartFailure(dataDir, failure);
      } catch {
        /* the line above still says it */
      }
      return EXIT_FAILURE;
    };
    const refuseConfig = (errors: string[]) => refuse(configFailure(errors, { version: APP_VERSION, nowMs: Date.now() }), errors);
    if (!loaded.ok) return refuseConfig(loaded.errors);
    const { config } = loaded;
    const selected = chooseLiveObserver(io.env, { dataDir });
    if ('error' in selected) return refuseConfig([selected.error]);
    const observers = selected.choice;
    let worker: RunningWorker;
    try {
      worker = await startWorker({
        config,
        env: io.env,
        provider: observers.primary,
        observers,
        log,
        stderr: io.stderr,
        loop: { concurrency },
        watch: watchDir === null ? null : { ...DEFAULT_WATCH_CONFIG, dirs: [watchDir], hostDirs },
        self: { bin: path.dirname(MEMTRACE_BIN), argv: ['worker', ...args] },
      });
    } catch (error) {
      const { line, failure } = startFailure(error, { dataDir, dbFile: config.dbFile, version: APP_VERSION, port: config.port, nowMs: Date.now() });
      return refuse(failure, [line]);
    }
    io.stdout.write(`memtrace worker listening on ${worker.url} (data: ${config.dataDir})\n${observers.describe()}\n`);
    if (watchDir !== null)
      io.stdout.write(
        `watching transcripts in ${[watchDir, ...hostDirs.map((h) => h.dir)].join(', ')} (every ${DEFAULT_WATCH_CONFIG.intervalMs / 1000} s, files idle for ${DEFAULT_WATCH_CONFIG.idleMs / 60_000} min; a folder not there is skipped)\n`,
      );
    if (worker.recoveredClaimed > 0) io.stdout.write(`recovered ${worker.recoveredClaimed} message(s) left in flight by an unclean stop\n`);

    const ended = await Promise.race([
      worker.handedOver,
      worker.dataDirGone.then(() => 'gone' as const),
      waitForStopSignal((signal) => io.stdout.write(`memtrace worker: ${signal} received, stopping…\n`)).then(() => null),
    ]);
    if (ended === 'gone') {
      io.stdout.write(`memtrace worker: ${config.dbFile} was removed; stopped\n`);
      return EXIT_OK;
    }
    if (ended !== null) {
      io.stdout.write(`memtrace worker: handed over to memtrace ${ended}, which serves this data dir from now on\n`);
      return EXIT_OK;
    }
    await worker.stop();
    io.stdout.write('memtrace worker stopped\n');
    return EXIT_OK;
  },
};
