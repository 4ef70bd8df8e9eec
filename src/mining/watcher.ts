import type { Clock } from '../clock.js';
import type { ProjectResolver } from '../repository/project-resolver.js';
import { nodeTimers, type Timers } from '../timers.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { BackoffMap } from './backoff.js';
import { discoverTranscripts, type Discovery } from './discover.js';
import { discoverHostTranscripts } from './hosts/discover-hosts.js';
import type { TranscriptHost } from './hosts/host-transcripts.js';
import { createMiner } from './miner.js';
import { miningRollupIncrements, passHasActivity, type FileOutcome, type FileReport, type PassReport } from './mining-report.js';
import { createStoreMiningStore } from './mining-store.js';
import { redactionIncrements } from '../telemetry/index.js';

export interface TranscriptWatchConfig {
  /** Folders to list (default: the Claude Code projects folder). */
  dirs: string[];
  /** Other hosts' transcript folders to list too (Gemini CLI's, Codex's, Copilot CLI's); a missing one is skipped. */
  hostDirs?: ReadonlyArray<{ host: TranscriptHost; dir: string }>;
  /** Time between passes. */
  intervalMs: number;
  /** Only files untouched this long are read: the session is between turns or over. */
  idleMs: number;
  /** Delay before the first pass, so a starting worker serves its first hooks first. */
  firstPassDelayMs: number;
  /** After a session ends, how long until its transcript is mined: its background hooks finish first, and it writes no more. */
  catchUpDelayMs: number;
}

export const DEFAULT_WATCH_CONFIG: Omit<TranscriptWatchConfig, 'dirs'> = {
  intervalMs: 60_000,
  idleMs: 120_000,
  firstPassDelayMs: 5_000,
  catchUpDelayMs: 15_000,
};

export interface TranscriptWatcherDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  telemetry: {
    recordCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void;
    captureException(error: unknown, stage: string, nowMs: number): void;
  };
  /** The observer loop's wake: mined events are observed like hook events. */
  wake(sessionId: string): void;
  /** A cwd's project and checkout (src/worker/project-of.ts). */
  projectOf: ProjectResolver;
  /**
   * A transcript the hooks reported has gone quiet (idle for `idleMs`) and is now mined: the
   * session may have ended without a SessionEnd or a Stop (an agent host kills background hooks
   * when it exits). Called once per quiet spell.
   */
  quiet?(sessionId: string, path: string): void;
  /** A working directory whose sessions are never mined (the observer's own scratch dir). */
  excludedCwd?(cwd: string | null): boolean;
  timers?: Timers;
  backoff?: BackoffMap;
}

export interface TranscriptWatcher {
  /** One pass now (tests, and the timer). Never throws; null when a pass is already running or stopped. */
  runPass(): Promise<PassReport | null>;
  /** A transcript the hooks reported (`transcript_path`): watched even outside the folders. */
  reportTranscript(sessionId: string, path: string): void;
  /**
   * The session ended: mine its transcript soon, so an event its background hooks lost when
   * Claude Code exited is still observed. Resolves when that mining is done (tests).
   */
  catchUp(sessionId: string, path: string): Promise<PassReport | null>;
  stop(): Promise<void>;
}

/** A mined file (or one with nothing new) is a transcript no longer being written. */
const QUIET_OUTCOMES: ReadonlySet<FileOutcome> = new Set(['mined', 'migrated', 'unchanged']);

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A host folder's transcripts, those the hooks reported already listed once; a folder not there (the host not installed) is no problem. */
function addHostFolder(into: Discovery, listed: Discovery, dir: string): void {
  const known = new Set(into.targets.map((t) => t.path));
  into.targets.push(...listed.targets.filter((t) => !known.has(t.path)));
  into.problems.push(...listed.problems.filter((p) => !(p.path === dir && p.error === 'no such directory')));
}

/**
 * `memtrace worker --watch`: every interval, lists the transcripts, and mines those that changed
 * and have been idle long enough. Runs on the worker's event loop between hook requests: it
 * awaits each file chunk and yields between files, its timers are unref'd, and it never throws.
 */
export function startTranscriptWatcher(config: TranscriptWatchConfig, deps: TranscriptWatcherDeps): TranscriptWatcher {
  const { clock, log } = deps;
  const timers = deps.timers ?? nodeTimers;
  const abort = new AbortController();
  const reported = new Map<string, string>();
  const catchUps = new Map<string, Promise<PassReport | null>>();
  /** Reported sessions already handed to `quiet` since their last hook event. */
  const settled = new Set<string>();
  const onFile = (file: FileReport) => {
    if (!QUIET_OUTCOMES.has(file.outcome) || reported.get(file.path) !== file.sessionId || settled.has(file.sessionId)) return;
    settled.add(file.sessionId);
    deps.quiet?.(file.sessionId, file.path);
  };
  const miner = createMiner(
    {},
    {
      store: createStoreMiningStore(deps.store, {
        projectOf: deps.projectOf,
        ...(deps.excludedCwd ? { excludedCwd: deps.excludedCwd } : {}),
        redacted: (counts, nowMs) => deps.telemetry.recordCounters('redaction_rollup', { edge: 'transcript' }, redactionIncrements(counts), nowMs),
      }),
      now: () => clock.now(),
      wake: deps.wake,
      yieldBetweenFiles: yieldToEventLoop,
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
    },
  );
  /** Gemini chat files' session ids (their first line's), read once per file rather than every pass. */
  const sessionIds = new Map<string, string>();
  let timer: { cancel(): void } | null = null;
  let running: Promise<PassReport | null> | null = null;
  let stopped = false;

  async function pass(only?: { path: string; sessionId: string }): Promise<PassReport | null> {
    try {
      const found = only
        ? await discoverTranscripts([], [only])
        : await discoverTranscripts(
            config.dirs,
            [...reported].map(([path, sessionId]) => ({ path, sessionId })),
          );
      if (!only) for (const { host, dir } of config.hostDirs ?? []) addHostFolder(found, await discoverHostTranscripts(host, dir, sessionIds), dir);
      const report = await miner.pass(found.targets, { idleMs: only ? 0 : config.idleMs, signal: abort.signal, onFile });
      const nowMs = clock.now();
      if (passHasActivity(report)) {
        deps.telemetry.recordCounters('mining_rollup', { trigger: only ? 'session_end' : 'watch' }, miningRollupIncrements(report), nowMs);
        log.info('transcripts mined', {
          files: report.byOutcome.mined,
          segments: report.segmentsMined,
          events_queued: report.eventsQueued,
          already_queued: report.eventsDuplicate,
          failed: report.byOutcome.failed,
          backoff_skips: report.byOutcome.backoff,
        });
      }
      for (const failure of report.failures)
        log.warn('transcript mining failed; retrying after backoff', {
          path: failure.path,
          error: failure.error,
          ...(failure.retryAtMs ? { retry_at: new Date(failure.retryAtMs).toISOString() } : {}),
        });
      return report;
    } catch (error) {
      // A background loop never throws: report it and try again next interval.
      log.error('transcript watcher pass failed', { error: String(error) });
      deps.telemetry.captureException(error, 'worker', clock.now());
      return null;
    }
  }

  function runPass(only?: { path: string; sessionId: string }): Promise<PassReport | null> {
    if (stopped || running) return Promise.resolve(null);
    running = pass(only).finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    timer = timers.setTimeout(() => {
      timer = null;
      void runPass().then(() => schedule(config.intervalMs));
    }, ms);
  }

  schedule(config.firstPassDelayMs);
  return {
    runPass,
    reportTranscript(sessionId, path) {
      if (reported.size < 10_000 || reported.has(path)) reported.set(path, sessionId);
      settled.delete(sessionId);
    },
    catchUp(sessionId, path) {
      if (reported.size < 10_000) reported.set(path, sessionId);
      // A Stop and then a SessionEnd ask for the same catch-up: one pass serves both.
      const pending = catchUps.get(path);
      if (pending) return pending;
      const done = new Promise<PassReport | null>((resolve) => {
        const attempt = (tries: number) =>
          timers.setTimeout(
            () => {
              // A pass already running: try again shortly rather than skip the catch-up.
              if (running && tries < 20 && !stopped) return void attempt(tries + 1);
              catchUps.delete(path);
              void runPass({ path, sessionId }).then(resolve);
            },
            tries === 0 ? config.catchUpDelayMs : 1_000,
          );
        attempt(0);
      });
      catchUps.set(path, done);
      return done;
    },
    async stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
      abort.abort();
      await running?.catch(() => undefined);
    },
  };
}
