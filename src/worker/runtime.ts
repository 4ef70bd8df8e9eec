import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { WorkerConfig } from '../config.js';
import { openStore, type Store } from '../store/index.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { createOtelRecorder, createTelemetry, type EventSink, type Telemetry } from '../telemetry/runtime.js';
import type { ObserverProvider } from '../providers/types.js';
import { loadCompactionConfig, startCompaction } from '../compaction/index.js';
import { createApp } from '../server/app.js';
import { listenLoopback } from '../http-edge/index.js';
import { createGitCommitVerifier, type CommitVerifier } from './commit-verifier.js';
import { acquireWorkerLock, ensureAuthToken, preparePrivateDataDir, type WorkerLock } from '../data-dir/index.js';
import { APP_VERSION } from '../version.js';
import { DEFAULT_LOOP_CONFIG, createObserverLoop, type ObserverLoopConfig } from './observer-loop.js';
import { createHookAccounting } from './hook-accounting.js';
import { createProjectResolver } from './project-of.js';
import { replaySpool } from './spool-replay.js';
import { createWorkerServices } from './worker-services.js';
import { createRunTurn } from './observer-turn.js';
import { nodeTimers } from '../timers.js';
import { storeLoopQueue } from './store-loop-queue.js';
import { platformOf } from '../hosts/platforms.js';
import type { TurnRecord } from '../observer/turn-record.js';
import { DEFAULT_WATCH_CONFIG, startTranscriptWatcher, type TranscriptWatchConfig, type TranscriptWatcher } from '../mining/index.js';

export interface WorkerOptions {
  config: WorkerConfig;
  env: Record<string, string | undefined>;
  provider: ObserverProvider;
  log: Logger;
  /** Where the first-run notice and debug payloads go. */
  stderr: { write(chunk: string): unknown };
  clock?: Clock;
  loop?: Partial<ObserverLoopConfig>;
  /** Overrides the commit checker (tests); by default `git cat-file --batch-check` with a 2 s limit. */
  commitVerifier?: CommitVerifier;
  /** Overrides the telemetry sink (tests); by default from MEMTRACE_POSTHOG_KEY/HOST. */
  telemetrySink?: EventSink | null;
  /** How often rollups are checked, the spool replayed and the queue re-read (default 30 s). */
  tickMs?: number;
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
  watcher: TranscriptWatcher;
  /** Graceful stop: stop claiming, release in-flight messages, flush rollups, drain telemetry. */
  stop(): Promise<void>;
}

const SHUTDOWN_LOOP_MS = 2_000;
const SHUTDOWN_TELEMETRY_MS = 3_000;

/** Composes the worker: store, telemetry, observer loop and HTTP API. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const clock = options.clock ?? systemClock;
  const { config } = options;
  preparePrivateDataDir(config.dataDir);
  // The lock comes before the store: recovering claimed messages is only safe for the one owner.
  const lock = acquireWorkerLock(config.dataDir, { pid: process.pid, port: null, version: APP_VERSION, started_at: new Date(clock.now()).toISOString() });
  try {
    return await startLocked(options, clock, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(options: WorkerOptions, clock: Clock, lock: WorkerLock): Promise<RunningWorker> {
  const { config, log } = options;
  const token = ensureAuthToken(config.dataDir);
  const store = openStore(config.dbFile, { backgroundCheckpoints: true, recoverClaimed: true });
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

  // A turn is counted under its session's agent host (the rollup's platform).
  const recordTurn = (turn: TurnRecord, nowMs: number) => {
    const platform = store.sessions.get(turn.sessionId)?.platform;
    telemetry.recordTurn(platform ? { ...turn, platform: platformOf(platform) } : turn, nowMs);
  };
  const loopConfig = { ...DEFAULT_LOOP_CONFIG, callTimeoutMs: config.providerTimeoutMs, ...options.loop };
  const loop = createObserverLoop(loopConfig, {
    queue: storeLoopQueue(store),
    runTurn: createRunTurn({
      store,
      provider: options.provider,
      clock,
      log,
      verifier: options.commitVerifier ?? createGitCommitVerifier({ timeoutMs: 2_000 }),
      recordTurn,
    }),
    provider: options.provider,
    telemetry: { recordTurn, sessionEnded: telemetry.sessionEnded, captureException: telemetry.captureException },
    clock,
    log,
    timers: nodeTimers,
  });

  let port = config.port;
  const hooks = createHookAccounting(telemetry, { defer: setImmediate });
  const projectOf = createProjectResolver();
  // Without --watch no folder is listed, but the transcripts the hooks report are still mined:
  // after a session ends (its background hooks may have been cut off) and when idle.
  const watcher = startTranscriptWatcher(options.watch ?? { ...DEFAULT_WATCH_CONFIG, dirs: [] }, { store, clock, log, telemetry, wake: (id) => loop.wake(id), projectOf });
  const app = createApp(
    createWorkerServices({
      store,
      loop,
      telemetry,
      hooks,
      projectOf,
      clock,
      log,
      version: APP_VERSION,
      providerName: options.provider.name,
      port: () => port,
      token,
      onTranscript: (sessionId, transcriptPath) => watcher.reportTranscript(sessionId, transcriptPath),
      onSessionEnded: (sessionId, transcriptPath) => {
        if (transcriptPath) void watcher.catchUp(sessionId, transcriptPath);
      },
    }),
  );

  const server = await listenLoopback(app, config.port);
  port = server.port;
  lock.update({ port });
  const replay = () =>
    replaySpool({ dataDir: config.dataDir, app, port, token, hooks, log, nowMs: () => clock.now() }).catch((error) => log.warn('spool replay failed', { error: String(error) }));
  const ticker = setInterval(() => {
    telemetry.tick(clock.now());
    void replay();
    loop.rescan();
  }, options.tickMs ?? 30_000);
  ticker.unref();
  await replay();
  loop.wake();
  const compactionConfig = loadCompactionConfig(options.env);
  for (const problem of compactionConfig.errors) log.warn(problem);
  const compaction = startCompaction(compactionConfig.config, { db: store.db, provider: options.provider, clock, timers: nodeTimers, log, recordCounters: telemetry.recordCounters });

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
        await watcher.stop();
        await server.close();
        await compaction.stop();
        await loop.stop(SHUTDOWN_LOOP_MS);
        await telemetry.shutdown(clock.now(), { drainMs: SHUTDOWN_TELEMETRY_MS });
        await checkpointer.stop();
        store.close();
        lock.release();
      })();
      return stopped;
    },
  };
}

