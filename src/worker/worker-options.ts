import type { Clock } from '../clock.js';
import type { WorkerConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { RetentionSchedule, RetentionTask } from '../memory/retention.js';
import type { TranscriptWatchConfig, TranscriptWatcher } from '../mining/index.js';
import type { ObserverChoice } from '../providers/select.js';
import type { ObserverProvider } from '../providers/types.js';
import type { RedactionCounts } from '../redaction/index.js';
import type { ShareLoop, ShareLoopConfig } from '../share/index.js';
import type { Store } from '../store/index.js';
import type { EventSink, Telemetry } from '../telemetry/runtime.js';
import type { Timers } from '../timers.js';
import type { BatchLimits } from './batch-policy.js';
import type { CommitVerifier } from './commit-verifier.js';
import type { ObserverLoopConfig } from './observer-loop.js';

/** What starts a worker (`memtrace worker`, the demo, tests and benches): startWorker in runtime.ts. */
export interface WorkerOptions {
  config: WorkerConfig;
  env: Record<string, string | undefined>;
  /** The one observer for every session (tests, the demo); `observers` takes precedence. */
  provider: ObserverProvider;
  /** Which observer each session gets, from the environment (providers/select.ts); defaults to `provider` alone. */
  observers?: ObserverChoice;
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
  /** `--watch`: mine Claude Code transcripts into the same queue (docs/mining.md). */
  watch?: TranscriptWatchConfig | null;
  /** When retention passes run (tests); its timers are `timers` below. */
  retention?: RetentionSchedule;
  /** Timers of the background tasks that take them (retention); real unref'd timers by default. */
  timers?: Timers;
  /** When a turn's events close into one observer call (tests, benches); docs/observer.md#batches by default. */
  batch?: BatchLimits;
  /** Replaces the hook API's body redactor (benchmarks compare against none); the real one by default. */
  redactBody?: <T>(value: T, counts: RedactionCounts) => T;
  /** The shared-memory loop's intervals (tests); docs/sharing.md's defaults otherwise. */
  share?: Partial<Pick<ShareLoopConfig, 'pollMs' | 'checkMs' | 'idleCheckMs' | 'backoff' | 'timeouts'>>;
  /**
   * The install this worker runs from (`<package>/bin`) and its command line after memtrace.cjs:
   * a newer install starts with the same (docs/interfaces.md#upgrades). Without it (in-process
   * workers) nothing is started on an upgrade, though a newer worker may still take over.
   */
  self?: { bin: string; argv: readonly string[] };
}

export interface RunningWorker {
  url: string;
  port: number;
  store: Store;
  telemetry: Telemetry;
  recoveredClaimed: number;
  previousShutdown: 'clean' | 'crash' | 'unknown';
  watcher: TranscriptWatcher;
  retention: RetentionTask;
  share: ShareLoop;
  /** Graceful stop: stop claiming, release in-flight messages, flush rollups, drain telemetry. */
  stop(): Promise<void>;
  /** Settles with the newer version's number once this worker has handed the data dir over to it and stopped. */
  handedOver: Promise<string>;
  /** Settles once this worker found its store removed (the data dir deleted) and stopped: it serves nobody. */
  dataDirGone: Promise<void>;
}
