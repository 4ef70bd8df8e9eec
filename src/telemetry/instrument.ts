import os from 'node:os';
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Timers } from '../timers.js';
import type { Logger } from '../log.js';
import type { TurnRecord } from '../observer/turn-record.js';
import { baseProperties } from './base-properties.js';
import { configPath, ensureTelemetryConfig, readTelemetryConfig, writeTelemetryConfig } from './config-file.js';
import { errorCaptureEnabled, isDebugMode, resolveConsent, type Consent } from './consent.js';
import { createDelivery, type FlushResult } from './delivery.js';
import type { OtelRecorder } from './otel.js';
import { createPostHogSink, type EventSink } from './posthog-sink.js';
import { createExceptionLimiter, errorFingerprint, redactErrorText } from './redact.js';
import { createRollupBook, type EmittedEvent } from './rollup-book.js';
import type { Injection } from './rollups/context-injection.js';
import { createTelemetryStore } from './telemetry-store.js';

export interface TelemetryConfig {
  dataDir: string;
  env: Record<string, string | undefined>;
  appVersion: string;
  provider: string;
}

export interface TelemetryDeps {
  db: Database.Database;
  clock: Clock;
  /** Delivery's timers (tests run them by hand); real unref'd timers by default. */
  timers?: Timers;
  log: Logger;
  stderr: { write(chunk: string): unknown };
  /** Overrides the PostHog sink (tests); by default built from MEMTRACE_POSTHOG_KEY/HOST. */
  sink?: EventSink | null;
  otel?: OtelRecorder | null;
  outboxLimit?: number;
}

export const NOTICE = `memtrace collects anonymous, aggregated usage counters (turn outcomes, token and cost totals,
observation types) to show its maintainers whether fixes work. No prompts, code, paths or tool output
ever leave this machine. See exactly what would be sent: npx telemetry preview
Turn it off: npx telemetry disable (or DO_NOT_TRACK=1). This notice is shown once.
`;

export type Telemetry = ReturnType<typeof createTelemetry>;

/** instrument(): the one entry every stage calls. Never throws, never does network I/O on the caller's path. */
export function createTelemetry(config: TelemetryConfig, deps: TelemetryDeps) {
  const { log, clock } = deps;
  const store = createTelemetryStore(deps.db, deps.outboxLimit === undefined ? {} : { outboxLimit: deps.outboxLimit });
  const debug = isDebugMode(config.env);
  const errorsOn = errorCaptureEnabled(config.env);
  let read = readTelemetryConfig(config.dataDir);
  const consent: Consent = resolveConsent({ env: config.env, file: read.state });
  if (consent.enabled && read.state.status === 'missing') {
    try {
      read = ensureTelemetryConfig(config.dataDir);
    } catch (error) {
      log.warn('telemetry config could not be written; telemetry stays local', { error: String(error) });
    }
  }
  const installId = read.config?.install_id ?? '00000000-0000-4000-8000-000000000000';
  const apiKey = config.env.MEMTRACE_POSTHOG_KEY?.trim();
  const host = (config.env.MEMTRACE_POSTHOG_HOST?.trim() || 'https://us.i.posthog.com').replace(/\/+$/, '');
  const sink: EventSink | null = debug ? null : deps.sink !== undefined ? deps.sink : apiKey ? createPostHogSink({ apiKey, host }) : null;
  const base = baseProperties({ appVersion: config.appVersion, platform: process.platform, arch: process.arch, nodeVersion: process.version, env: config.env });
  const onEmit = (event: EmittedEvent) => {
    if (debug) deps.stderr.write(`[telemetry debug] would send ${JSON.stringify(event)}\n`);
  };
  const book = createRollupBook({ store, installId, provider: config.provider, base, onEmit });
  const delivery = createDelivery({
    store,
    sink,
    installId,
    clock,
    log,
    ...(deps.timers ? { timers: deps.timers } : {}),
    noticeRecorded: () => readTelemetryConfig(config.dataDir).config?.notice_shown_at != null,
  });
  const limiter = createExceptionLimiter();
  let startedAtMs = clock.now();

  /** Telemetry must never break the caller: every entry point goes through here. */
  const guard = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      log.warn('telemetry step failed', { step: what, error: String(error) });
    }
  };

  return {
    consent,
    installId,
    recordTurn(turn: TurnRecord, nowMs: number): void {
      log.debug('observer turn', { ...turn });
      guard('otel', () => deps.otel?.recordTurn(turn, nowMs));
      if (!consent.enabled) return;
      guard('fold turn', () => book.foldTurn(turn, nowMs));
    },
    recordInjection(injection: Injection, nowMs: number): void {
      log.debug('context injected', { ...injection });
      if (!consent.enabled) return;
      guard('fold injection', () => book.foldInjection(injection, nowMs));
    },
    /** Windowed counters (hook_rollup, mining_rollup, compaction_rollup): summed per 5-minute window and dimension set. */
    recordCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void {
      log.debug('counters', { event, ...dims, ...increments });
      if (!consent.enabled) return;
      guard(`fold ${event}`, () => book.foldCounters(event, dims, increments, nowMs));
    },
    /**
     * recordCounters without the log line, for counters folded on every hook call: one line per
     * tool call would be most of the worker's log, and writing it a share of the call's cost.
     */
    foldCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void {
      if (!consent.enabled) return;
      guard(`fold ${event}`, () => book.foldCounters(event, dims, increments, nowMs));
    },
    sessionEnded(sessionId: string, nowMs: number): void {
      if (!consent.enabled) return;
      guard('session end', () => {
        if (book.closeSession(sessionId, nowMs)) delivery.nudge();
      });
    },
    captureException(error: unknown, stage: string, nowMs: number): void {
      log.error('unexpected error', { stage, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      if (!consent.enabled || !errorsOn) return;
      guard('exception', () => {
        const type = error instanceof Error ? error.name : 'NonError';
        const message = redactErrorText(error instanceof Error ? error.message : String(error), { homeDir: os.homedir() });
        const fingerprint = errorFingerprint(type, message);
        const admitted = limiter.admit(fingerprint, nowMs);
        if (!admitted.emit) return;
        book.emit(
          '$exception',
          `exception:${fingerprint}`,
          Math.floor(nowMs / 60_000),
          { $exception_type: type, $exception_message: message, $exception_fingerprint: fingerprint, occurrences: admitted.occurrences, stage },
          nowMs,
        );
      });
    },
    tick(nowMs: number): void {
      if (!consent.enabled) return;
      guard('tick', () => book.tick(nowMs));
    },
    /** Recovers what a crash left open, reports the start, shows the first-run notice, starts delivery. */
    start(nowMs: number): { previousShutdown: 'clean' | 'crash' | 'unknown' } {
      startedAtMs = nowMs;
      const marker = store.state.get('run_state');
      const previousShutdown = marker === 'running' ? 'crash' : marker === 'stopped' ? 'clean' : 'unknown';
      if (consent.layer === 'config_error') {
        // Off without a word would look like a choice the user never made.
        deps.stderr.write(
          `memtrace: telemetry is off — ${configPath(config.dataDir)}: ${read.state.status === 'corrupt' ? read.state.reason : consent.reason}; fix the file, or run 'memtrace telemetry enable' or 'disable' to rewrite it\n`,
        );
      }
      guard('start', () => {
        store.state.set('run_state', 'running');
        if (!consent.enabled) return;
        const recovered = book.closeAll('crash_recovery', nowMs);
        if (recovered > 0) log.warn('rollups left open by an unclean stop were flushed', { count: recovered });
        book.emit(
          'worker_started',
          `start:${nowMs}`,
          0,
          { previous_shutdown: previousShutdown, provider: config.provider, outbox_dropped: store.takeDropped() },
          nowMs,
        );
        if (read.config && read.config.notice_shown_at === null) {
          deps.stderr.write(NOTICE);
          writeTelemetryConfig(config.dataDir, { ...read.config, notice_shown_at: new Date(nowMs).toISOString() });
        }
        delivery.start();
      });
      return { previousShutdown };
    },
    async shutdown(nowMs: number, options: { drainMs?: number } = {}): Promise<void> {
      guard('shutdown', () => {
        if (consent.enabled) {
          book.closeAll('worker_shutdown', nowMs);
          book.emit(
            'worker_stopped',
            `stop:${nowMs}`,
            0,
            { uptime_s: Math.max(0, Math.round((nowMs - startedAtMs) / 1000)), outbox_dropped: store.takeDropped() },
            nowMs,
          );
        }
        store.state.set('run_state', 'stopped');
      });
      await delivery.stop(options.drainMs ?? 3_000);
      await deps.otel?.shutdown().catch(() => undefined);
    },
    flush: (_nowMs?: number): Promise<FlushResult> => delivery.flushNow(),
    /** Resolves once no delivery is running (tests that drive time by hand). */
    deliveryIdle: () => delivery.idle(),
    preview(limit = 50) {
      return store
        .peek(limit)
        .map((e) => ({ event: e.event, uuid: e.uuid, timestamp: new Date(e.timestamp).toISOString(), distinct_id: installId, properties: e.properties }));
    },
    status(nowMs: number) {
      return {
        enabled: consent.enabled,
        decided_by: consent.layer,
        reason: consent.reason,
        install_id: read.config?.install_id ?? null,
        config_path: configPath(config.dataDir),
        sink: debug ? 'debug (prints payloads, sends nothing)' : sink ? sink.host : 'local only',
        sink_state: delivery.sinkState(),
        outbox_depth: store.outboxDepth(),
        pending_rollups: store.pendingRollups(),
        last_flush_at: store.state.get('last_flush_at'),
        last_flush_result: store.state.get('last_flush_result'),
        error_capture: errorsOn,
        debug,
        checked_at: new Date(nowMs).toISOString(),
      };
    },
  };
}
