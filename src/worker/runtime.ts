import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { WorkerConfig } from '../config.js';
import { openStore, type Store } from '../store/index.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { createOtelRecorder, createTelemetry, type EventSink, type Telemetry } from '../telemetry/runtime.js';
import type { ObserverProvider } from '../providers/types.js';
import { buildContext, createContextQuery, parseBudget } from '../context/index.js';
import { createApp } from '../server/app.js';
import { listenLoopback } from '../server/listen.js';
import { createGitCommitChecker } from '../observer/git-commit-checker.js';
import { APP_VERSION } from '../version.js';
import { DEFAULT_LOOP_CONFIG, createObserverLoop, type ObserverLoopConfig } from './observer-loop.js';
import { createRunTurn } from './observer-turn.js';
import { nodeTimers } from './node-timers.js';
import { storeLoopQueue } from './store-loop-queue.js';
import { startTranscriptWatcher, type TranscriptWatchConfig, type TranscriptWatcher } from '../mining/index.js';

export interface WorkerOptions {
  config: WorkerConfig;
  env: Record<string, string | undefined>;
  provider: ObserverProvider;
  log: Logger;
  /** Where the first-run notice and debug payloads go. */
  stderr: { write(chunk: string): unknown };
  clock?: Clock;
  loop?: Partial<ObserverLoopConfig>;
  /** Overrides the telemetry sink (tests); by default from MEMTRACE_POSTHOG_KEY/HOST. */
  telemetrySink?: EventSink | null;
  /** `--watch`: mine Claude Code transcripts into the same queue (SPEC §4.9). */
  watch?: TranscriptWatchConfig | null;
}

export interface RunningWorker {
  url: string;
  port: number;
  store: Store;
  telemetry: Telemetry;
  recoveredClaimed: number;
  previousShutdown: 'clean' | 'crash' | 'unknown';
  watcher: TranscriptWatcher | null;
  /** Graceful stop: stop claiming, release in-flight messages, flush rollups, drain telemetry. */
  stop(): Promise<void>;
}

const SHUTDOWN_LOOP_MS = 2_000;
const SHUTDOWN_TELEMETRY_MS = 3_000;

/** Composes the worker: store, telemetry, observer loop and HTTP API. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const clock = options.clock ?? systemClock;
  const { config, log } = options;
  const store = openStore(config.dbFile, { backgroundCheckpoints: true });
  const checkpointer = startCheckpointer(config.dbFile, { intervalMs: 2_000, onError: (error) => log.warn('WAL checkpoint failed', { error: String(error) }) });
  if (store.recoveredClaimed > 0) log.warn('returned claimed messages to pending after an unclean stop', { count: store.recoveredClaimed });

  const telemetry = createTelemetry(
    { dataDir: config.dataDir, env: options.env, appVersion: APP_VERSION, provider: options.provider.name },
    {
      db: store.db,
      clock,
      log,
      stderr: options.stderr,
      otel: createOtelRecorder(options.env, APP_VERSION),
      ...(options.telemetrySink === undefined ? {} : { sink: options.telemetrySink }),
    },
  );
  const { previousShutdown } = telemetry.start(clock.now());

  const loopConfig = { ...DEFAULT_LOOP_CONFIG, ...options.loop };
  const loop = createObserverLoop(loopConfig, {
    queue: storeLoopQueue(store),
    runTurn: createRunTurn({
      store,
      provider: options.provider,
      clock,
      log,
      verify: createGitCommitChecker({ timeoutMs: 2_000 }),
      recordTurn: (turn, nowMs) => telemetry.recordTurn(turn, nowMs),
    }),
    provider: options.provider,
    telemetry,
    clock,
    log,
    timers: nodeTimers,
  });

  const contextQuery = createContextQuery(store.db);
  let port = config.port;
  const app = createApp({
    clock,
    log,
    version: APP_VERSION,
    providerName: options.provider.name,
    port: () => port,
    sessions: {
      init: (input) => store.sessions.init(input),
      end: (sessionId, nowMs) => {
        const known = store.sessions.end(sessionId, nowMs);
        if (known) loop.sessionEnded(sessionId);
        return known;
      },
    },
    enqueue: (input) => {
      if (!store.sessions.get(input.sessionId)) {
        store.sessions.init({ sessionId: input.sessionId, project: projectFromCwd(input.cwd), prompt: null, platform: null, nowMs: input.nowMs });
      }
      const result = store.queue.enqueue(input);
      if (result.status === 'queued') loop.wake(input.sessionId);
      return result;
    },
    injectContext: ({ project, budgetRaw, nowMs }) => {
      const budget = parseBudget(budgetRaw);
      if (typeof budget !== 'number') return { ok: false, field: 'budget_tokens', message: budget.error };
      try {
        const result = buildContext(contextQuery, { project, budgetTokens: budget, nowMs });
        telemetry.recordInjection({ ok: true, tokensInjected: result.tokensInjected, observationsInjected: result.observationsInjected, tokensSavedVsNaive: result.tokensSavedVsNaive }, nowMs);
        return { ok: true, markdown: result.markdown };
      } catch (error) {
        telemetry.recordInjection({ ok: false, tokensInjected: 0, observationsInjected: 0, tokensSavedVsNaive: null }, nowMs);
        throw error;
      }
    },
    health: () => {
      const s = loop.status();
      return { queue_depth: store.queue.depth(), paused_sessions: s.pausedSessions.length, in_flight: s.inFlight };
    },
    telemetryStatus: (nowMs) => telemetry.status(nowMs),
    reportError: (error, stage) => telemetry.captureException(error, stage, clock.now()),
  });

  const server = await listenLoopback(app, config.port);
  port = server.port;
  const ticker = setInterval(() => telemetry.tick(clock.now()), 30_000);
  ticker.unref();
  loop.wake();
  const watcher = options.watch ? startTranscriptWatcher(options.watch, { store, clock, log, telemetry, wake: (id) => loop.wake(id), projectOf: projectFromCwd }) : null;

  let stopped: Promise<void> | null = null;
  return {
    url: server.url,
    port: server.port,
    store,
    telemetry,
    recoveredClaimed: store.recoveredClaimed,
    previousShutdown,
    watcher,
    stop() {
      stopped ??= (async () => {
        clearInterval(ticker);
        await watcher?.stop();
        await server.close();
        await loop.stop(SHUTDOWN_LOOP_MS);
        await telemetry.shutdown(clock.now(), { drainMs: SHUTDOWN_TELEMETRY_MS });
        await checkpointer.stop();
        store.close();
      })();
      return stopped;
    },
  };
}

function projectFromCwd(cwd: string | null): string | null {
  if (!cwd) return null;
  const parts = cwd.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? null;
}
