import { systemClock, type Clock } from '../clock.js';
import { createRawData } from '../store/index.js';
import { DEFAULT_RETENTION_BATCH, DEFAULT_RETENTION_SCHEDULE, startRetention } from '../memory/retention.js';
import { pruneSpool } from '../data-dir/index.js';
import { createTelemetry, startOtel } from '../telemetry/runtime.js';
import { single } from '../providers/select.js';
import { observerEnvSet } from '../providers/observer-env.js';
import { cannotSummarize, loadCompactionConfig, startCompaction } from '../compaction/index.js';
import { createApp } from '../server/app.js';
import { createContextFiles, keepContextAfterReply } from './context-files.js';
import { createGitCommitVerifier } from './commit-verifier.js';
import { ensureAuthToken, isObserverScratch, preparePrivateDataDir, type WorkerLock } from '../data-dir/index.js';
import { APP_VERSION } from '../version.js';
import { totalRedactions, type RedactionCounts } from '../redaction/index.js';
import { redactionIncrements, type RedactionEdge } from '../telemetry/index.js';
import { DEFAULT_LOOP_CONFIG } from './observer-loop.js';
import { startObserver } from './observer-runtime.js';
import { followObserver } from './observer-follow.js';
import { createHookAccounting } from './hook-accounting.js';
import { createProjectResolver } from './project-of.js';
import { backgroundWrites } from './background-writes.js';
import { createWorkerServices } from './worker-services.js';
import { nodeTimers } from '../timers.js';
import { platformOf } from '../hosts/platforms.js';
import type { TurnRecord } from '../observer/turn-record.js';
import { DEFAULT_WATCH_CONFIG, startTranscriptWatcher } from '../mining/index.js';
import { takeDataDir } from './hand-over-client.js';
import { createLifecycle } from './lifecycle.js';
import type { RunningWorker, WorkerOptions } from './worker-options.js';
import { openWorkerDoors } from './worker-doors.js';
import { openWorkerStore } from './worker-store.js';
import { startWorkerShare } from './worker-share.js';
import { startWorkerTick } from './worker-tick.js';

export type { RunningWorker, WorkerOptions } from './worker-options.js';

const SHUTDOWN_LOOP_MS = 2_000;
const SHUTDOWN_TELEMETRY_MS = 3_000;
/** A hand-over's wait beyond the provider timeout: telemetry drain, checkpoint, lock release. */
const HAND_OVER_MARGIN_MS = 15_000;

/** Composes the worker: store, telemetry, observer loop and HTTP API. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const clock = options.clock ?? systemClock;
  const { config } = options;
  preparePrivateDataDir(config.dataDir);
  // The lock comes before the store: recovering claimed messages is only safe for the one owner.
  // An older worker holding it is asked to hand over; its observer calls finish first.
  const lock = await takeDataDir(
    config.dataDir,
    {
      pid: process.pid,
      port: null,
      version: APP_VERSION,
      started_at: new Date(clock.now()).toISOString(),
      ...(options.self ? { package: options.self.bin } : {}),
    },
    { log: options.log, waitMs: config.providerTimeoutMs + HAND_OVER_MARGIN_MS, clock },
  );
  try {
    return await startLocked(options, clock, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(options: WorkerOptions, clock: Clock, lock: WorkerLock): Promise<RunningWorker> {
  const { config, log } = options;
  const observers = options.observers ?? single(options.provider, 'configured');
  const token = ensureAuthToken(config.dataDir);
  const { store, checkpointer } = openWorkerStore(config, log);

  const telemetry = createTelemetry(
    { dataDir: config.dataDir, env: options.env, appVersion: APP_VERSION, provider: observers.primary.name },
    {
      db: store.db,
      clock,
      log,
      stderr: options.stderr,
      otel: await startOtel(options.env, APP_VERSION, (warning) => log.warn(warning)),
      ...(options.telemetrySink === undefined ? {} : { sink: options.telemetrySink }),
    },
  );
  const { previousShutdown } = telemetry.start(clock.now());

  const reportRedactions = (edge: RedactionEdge, counts: RedactionCounts, nowMs: number) => {
    if (totalRedactions(counts) > 0) telemetry.recordCounters('redaction_rollup', { edge }, redactionIncrements(counts), nowMs);
  };

  // A turn is counted under its session's agent host (the rollup's platform).
  const recordTurn = (turn: TurnRecord, nowMs: number) => {
    const platform = store.sessions.get(turn.sessionId)?.platform;
    telemetry.recordTurn(platform ? { ...turn, platform: platformOf(platform) } : turn, nowMs);
    // The turn's memory is committed: a shared project's queue has it now.
    share.wake();
  };
  const share = startWorkerShare(options, config.dataDir, {
    store,
    clock,
    log,
    recordCounters: telemetry.recordCounters,
    reportRedactions: (counts, nowMs) => reportRedactions('share', counts, nowMs),
  });
  const loopConfig = { ...DEFAULT_LOOP_CONFIG, callTimeoutMs: config.providerTimeoutMs, ...options.loop };
  const observer = startObserver(
    {
      dailyBudgetTokens: config.observerBudgetTokens,
      loop: loopConfig,
      envSeen: observerEnvSet(options.env),
      ...(options.batch ? { batch: options.batch } : {}),
    },
    {
      store,
      choice: observers,
      clock,
      log,
      timers: nodeTimers,
      verifier: options.commitVerifier ?? createGitCommitVerifier({ timeoutMs: 2_000 }),
      telemetry: { recordTurn, sessionEnded: telemetry.sessionEnded, captureException: telemetry.captureException },
      reportRedactions,
    },
  );
  const { loop } = observer;

  const raw = createRawData(store.db);
  const retention = startRetention(
    { rawRetentionDays: config.rawRetentionDays, maxDbBytes: config.maxDbMb * 1024 * 1024, batch: DEFAULT_RETENTION_BATCH },
    options.retention ?? DEFAULT_RETENTION_SCHEDULE,
    {
      raw,
      pruneSpool: (cutoffMs) => pruneSpool(config.dataDir, cutoffMs),
      clock,
      timers: options.timers ?? nodeTimers,
      log,
      write: backgroundWrites(store.db, nodeTimers, () => performance.now()),
    },
  );

  const compactionConfig = loadCompactionConfig(options.env);
  const follow = followObserver({
    choice: observers,
    loop,
    log,
    defer: setImmediate,
    startCompaction: () => {
      const provider = observer.compactionProvider();
      // A provider that cannot summarize is not asked to, every pass, only to fail: compaction stays off.
      const noSummaries = cannotSummarize(provider);
      if (noSummaries !== null) log.info(`compaction is off: ${noSummaries}`);
      return noSummaries !== null
        ? null
        : startCompaction(compactionConfig.config, { db: store.db, provider, clock, timers: nodeTimers, log, recordCounters: telemetry.recordCounters });
    },
  });

  let port = config.port;
  let portWanted: number | null = null;
  let stopWorker: (handOver: boolean) => Promise<void> = async () => undefined;
  let handedOverTo: (version: string) => void = () => undefined;
  const handedOver = new Promise<string>((resolve) => {
    handedOverTo = resolve;
  });
  let storeGone: () => void = () => undefined;
  const dataDirGone = new Promise<void>((resolve) => {
    storeGone = resolve;
  });
  const lifecycle = createLifecycle(
    { dataDir: config.dataDir, version: APP_VERSION, bin: options.self?.bin ?? null, argv: options.self?.argv ?? ['worker'], env: options.env },
    {
      log,
      clock,
      handOver: (version) =>
        void stopWorker(true).then(
          () => handedOverTo(version),
          (error) => log.error('the hand-over did not finish cleanly', { error: String(error) }),
        ),
    },
  );
  // Folded inside the hook's own transaction (host-intake.ts): one commit for the event and its count.
  const hooks = createHookAccounting({ recordCounters: telemetry.foldCounters });
  const projectOf = createProjectResolver();
  // Without --watch no folder is listed, but the transcripts the hooks report are still mined:
  // after a session ends (its background hooks may have been cut off) and when idle.
  const contextFiles = createContextFiles({ db: store.db, dataDir: config.dataDir });
  const keepContext = keepContextAfterReply(config.dataDir, log);
  const services = createWorkerServices({
    store,
    loop,
    telemetry,
    hooks,
    projectOf,
    clock,
    log,
    version: APP_VERSION,
    providerName: () => observers.primary.name,
    observerStatus: observer.status,
    excludedCwd: (cwd) => isObserverScratch(cwd, config.dataDir),
    port: () => port,
    token,
    onTranscript: (sessionId, transcriptPath) => watcher.reportTranscript(sessionId, transcriptPath),
    reportRedactions,
    ...(options.redactBody ? { redactBody: options.redactBody } : {}),
    storeHealth: () => ({
      size: raw.size(),
      budgetBytes: config.maxDbMb * 1024 * 1024,
      retentionDays: config.rawRetentionDays,
      lastRetention: retention.last(),
    }),
    onSessionEnded: (sessionId, transcriptPath) => {
      if (transcriptPath) void watcher.catchUp(sessionId, transcriptPath);
    },
    onTurnEnded: (sessionId, transcriptPath) => void watcher.catchUp(sessionId, transcriptPath),
    keepContext,
    // A CLI installed or logged in since the last look is noticed by the next session at the latest.
    onSessionStart: follow.sessionStarted,
    lifecycle: { health: () => ({ ...lifecycle.health(), portWanted }), notice: () => lifecycle.notice() },
  });
  const watcher = startTranscriptWatcher(options.watch ?? { ...DEFAULT_WATCH_CONFIG, dirs: [] }, {
    store,
    clock,
    log,
    telemetry,
    wake: (id) => loop.wake(id),
    projectOf,
    quiet: (sessionId) => services.sessionQuiet(sessionId, clock.now()),
    excludedCwd: (cwd) => isObserverScratch(cwd, config.dataDir),
  });
  const app = createApp(services);
  const resumedStops = services.stopTexts.resume(clock.now());
  if (resumedStops > 0) log.info('waiting again for the final text of held Stops', { count: resumedStops });

  const doors = await openWorkerDoors({
    config,
    env: options.env,
    app,
    services,
    hooks,
    lifecycle,
    store,
    lock,
    token,
    port: () => port,
    listening(listeningOn, wanted) {
      port = listeningOn;
      portWanted = wanted;
    },
    recordCounters: telemetry.recordCounters,
    reportError: (error) => telemetry.captureException(error, 'server', clock.now()),
    clock,
    log,
  });
  const { server } = doors;
  lifecycle.started();
  const tick = startWorkerTick({
    dbFile: config.dbFile,
    tickMs: options.tickMs ?? 30_000,
    clock,
    log,
    telemetry,
    doors,
    follow,
    loop,
    contextFiles,
    lifecycle,
    storeRemoved: () => void stopWorker(false).then(storeGone, storeGone),
  });
  loop.wake();
  for (const problem of compactionConfig.errors) log.warn(problem);
  log.info(observers.describe());
  follow.start();

  let stopped: Promise<void> | null = null;
  // A hand-over closes the doors first (later hooks spool for the newer worker), then lets the
  // observer and compaction calls in flight finish, so none is paid for twice.
  stopWorker = (handOver: boolean) => {
    stopped ??= (async () => {
      tick.stop();
      lifecycle.stop();
      services.stopTexts.stop();
      await doors.close();
      await retention.stop();
      await watcher.stop();
      await follow.stop(handOver ? { graceMs: config.providerTimeoutMs } : {});
      await share.stop();
      await loop.stop(handOver ? config.providerTimeoutMs : SHUTDOWN_LOOP_MS, { finishCalls: handOver });
      await telemetry.shutdown(clock.now(), { drainMs: SHUTDOWN_TELEMETRY_MS });
      await tick.lastContextRefresh();
      await checkpointer.stop();
      store.close();
      lock.release();
    })();
    return stopped;
  };
  return {
    url: server.url,
    port: server.port,
    store,
    telemetry,
    recoveredClaimed: store.recoveredClaimed,
    previousShutdown,
    watcher,
    retention,
    share,
    stop: () => stopWorker(false),
    handedOver,
    dataDirGone,
  };
}
