import type { Clock } from '../clock.js';
import { buildContext, createContextQuery, parseBudget } from '../context/index.js';
import { resolveProjectArgument } from '../memory/project-argument.js';
import type { Logger } from '../log.js';
import type { WorkerServices } from '../server/app.js';
import type { ProjectResolver } from '../repository/project-resolver.js';
import { briefTransactions, STORE_BUSY_WAIT_MS, type Store } from '../store/index.js';
import { HOOK_STORE_WAIT_MS } from './busy-spill.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { Telemetry } from '../telemetry/runtime.js';
import { healthReport, type LifecycleHealth, type StoreHealth } from './health-report.js';
import type { ObserverStatus } from './observer-runtime.js';
import type { HookAccounting } from './hook-accounting.js';
import type { ObserverLoop } from './observer-loop.js';
import { projectLabel } from './project-of.js';
import { adapterDepsFor, lastAssistantTextFor } from '../hosts/adapter-deps.js';
import { createEventIntake } from './event-intake.js';
import { createStopTextResolver, DEFAULT_STOP_TEXT_CONFIG, type StopTextConfig, type StopTextResolver } from './stop-text.js';
import { nodeTimers, type Timers } from '../timers.js';
import { createHostIntake, type HostIntake, type HostIntakeDeps } from './host-intake.js';
import { createAgentTimeTracker } from './agent-time.js';
import { adapterFor, isHostName } from '../hosts/index.js';
import { redactTextInto, redactValueInto, totalRedactions, type RedactionCounts } from '../redaction/index.js';
import type { RedactionEdge } from '../telemetry/index.js';

export interface ServiceDeps {
  store: Store;
  loop: ObserverLoop;
  telemetry: Telemetry;
  hooks: HookAccounting;
  /** A cwd's project and checkout (src/worker/project-of.ts). */
  projectOf: ProjectResolver;
  clock: Clock;
  log: Logger;
  version: string;
  /** The primary observer's name now (an agent CLI may appear while the worker runs). */
  providerName(): string;
  port(): number;
  token: string;
  /** A hook reported the session's transcript (watched for what the hooks miss). */
  onTranscript?: (sessionId: string, transcriptPath: string) => void;
  /** A session ended: what its transcript holds beyond what the hooks delivered may be mined. */
  onSessionEnded?: (sessionId: string, transcriptPath: string | null) => void;
  /** A turn ended (Stop): the transcript may hold tool events whose background hooks will be killed. */
  onTurnEnded?: (sessionId: string, transcriptPath: string) => void;
  /** Keeps the context a session starting in `cwd` got (for a start while no worker runs). */
  keepContext?: (cwd: string, output: string, variant: string | null) => void;
  /** The store's size, budget and last retention pass, for /health. */
  storeHealth?: () => StoreHealth;
  /** A working directory whose events are never taken (the observer's scratch dir). */
  excludedCwd?(cwd: string | null): boolean;
  /** A session started (a hook's SessionStart, or the API's init): the observer is looked at again. */
  onSessionStart?(nowMs: number): void;
  /** Which observer runs and why, its waits, today's spend and the daily budget, for /health. */
  observerStatus?: () => ObserverStatus;
  /** Secrets replaced before a write, by where they were caught (counts only). */
  reportRedactions(edge: RedactionEdge, counts: RedactionCounts, nowMs: number): void;
  /** Replaces the request-body redactor (benchmarks measure the API without it); the real one by default. */
  redactBody?: <T>(value: T, counts: RedactionCounts) => T;
  /** How long a Stop waits for the final text its host writes later (Copilot), and how often it is looked for. */
  stopText?: StopTextConfig;
  timers?: Timers;
  /** Versions and ports for /health, and the line a live SessionStart gets when a newer install cannot take over. */
  lifecycle?: { health(): LifecycleHealth; notice(): string | null };
}

export type Services = WorkerServices & {
  hostIntake: HostIntake;
  /** The same intake for spooled events: a busy write lock fails it at once (the replay is tried again). */
  replayIntake: HostIntake;
  /** Stops held for their final text (Copilot): resumed at start, stopped at shutdown. */
  stopTexts: StopTextResolver;
  /** A session's transcript went quiet: queue its last summary request if none came. */
  sessionQuiet(sessionId: string, nowMs: number): void;
};

/** The worker's side of each route: store writes, loop wake-ups, context, accounting. */
export function createWorkerServices(deps: ServiceDeps): Services {
  const { store, loop, telemetry, clock } = deps;
  const contextQuery = createContextQuery(store.db);
  /** A write on the request path: a full disk pauses the loop too, a success lets it resume. */
  const write = <T>(fn: () => T): T => {
    try {
      const result = fn();
      loop.storeRecovered();
      return result;
    } catch (error) {
      const fault = storageFaultOf(error);
      if (fault) loop.storeFailed(fault);
      throw error;
    }
  };
  /** Secrets replaced before anything is written (docs/secrets-and-retention.md); only counts are kept. */
  const redacting = <T>(edge: RedactionEdge, nowMs: number, redact: (counts: RedactionCounts) => T): T => {
    const counts: RedactionCounts = {};
    const clean = redact(counts);
    if (totalRedactions(counts) > 0) deps.reportRedactions(edge, counts, nowMs);
    return clean;
  };
  const redactTranscriptText = (text: string, nowMs: number) => redacting('transcript', nowMs, (counts) => redactTextInto(text, counts));
  const stopTexts = createStopTextResolver(deps.stopText ?? DEFAULT_STOP_TEXT_CONFIG, {
    store,
    clock,
    timers: deps.timers ?? nodeTimers,
    log: deps.log,
    redactText: redactTranscriptText,
    wake: (sessionId) => loop.wake(sessionId),
  });
  const intake = createEventIntake({
    store,
    projectOf: deps.projectOf,
    write,
    wake: (sessionId, queued) => loop.wake(sessionId, queued),
    onTranscript: deps.onTranscript,
    turnEnded: (sessionId, transcriptPath) => deps.onTurnEnded?.(sessionId, transcriptPath),
    sessionEnded: (sessionId, transcriptPath) => {
      loop.sessionEnded(sessionId);
      deps.onSessionEnded?.(sessionId, transcriptPath);
    },
    lastAssistantText: (transcriptPath, platform) => lastAssistantTextFor(platform, transcriptPath),
    redactEvent: (event, nowMs) => redacting('hook_api', nowMs, (counts) => (deps.redactBody ?? redactValueInto)(event, counts)),
    redactText: redactTranscriptText,
    ...(deps.excludedCwd ? { excludedCwd: deps.excludedCwd } : {}),
    stopText: stopTexts,
  });
  const health = () =>
    healthReport(
      loop.status(),
      store.queue.depth(),
      deps.hooks.stats(),
      deps.providerName(),
      deps.storeHealth?.(),
      deps.observerStatus?.(),
      deps.lifecycle?.health(),
    );
  const accept = (event: Parameters<typeof intake.accept>[0], nowMs: number) => {
    if (event.kind === 'session_start') deps.onSessionStart?.(nowMs);
    return intake.accept(event, nowMs);
  };

  const api: WorkerServices = {
    clock,
    log: deps.log,
    version: deps.version,
    providerName: deps.providerName,
    port: deps.port,
    token: () => deps.token,
    accept,
    injectContext: ({ project, cwd, budgetRaw, nowMs }) => {
      const budget = parseBudget(budgetRaw);
      if (typeof budget !== 'number') return { ok: false, field: 'budget_tokens', message: budget.error };
      // A project named on the route may be any checkout of its repository (a worktree's path too).
      const key = project ? resolveProjectArgument(store.db, project) : deps.projectOf(cwd);
      try {
        const result = buildContext(contextQuery, { project: key, label: projectLabel(key), budgetTokens: budget, nowMs });
        telemetry.recordInjection(
          { ok: true, tokensInjected: result.tokensInjected, observationsInjected: result.observationsInjected, tokensSavedVsNaive: result.tokensSavedVsNaive },
          nowMs,
        );
        return { ok: true, markdown: result.markdown };
      } catch (error) {
        telemetry.recordInjection({ ok: false, tokensInjected: 0, observationsInjected: 0, tokensSavedVsNaive: null }, nowMs);
        throw error;
      }
    },
    health,
    telemetryStatus: (nowMs) => ({ ...telemetry.status(nowMs), worker: { running: true, pid: process.pid, port: deps.port(), ...health() } }),
    reportError: (error, stage) => telemetry.captureException(error, stage, clock.now()),
  };
  const agentTime = createAgentTimeTracker(telemetry, (host, kind) => (isHostName(host) ? (adapterFor(host)?.blocking.has(kind) ?? false) : false));
  const intakeWaiting = (waitMs: number) => {
    const transaction = briefTransactions(store.db, waitMs, STORE_BUSY_WAIT_MS);
    return createHostIntake({ ...hostIntakeDeps, atomically: <T>(fn: () => T): T => write(() => transaction(fn)) });
  };
  const hostIntakeDeps: Omit<HostIntakeDeps, 'atomically'> = {
    accept,
    contextFor: (cwd, nowMs) => {
      const result = api.injectContext({ project: null, cwd, budgetRaw: undefined, nowMs });
      return result.ok ? result.markdown : '';
    },
    keepContext: (cwd, output, variant) => deps.keepContext?.(cwd, output, variant),
    notice: () => deps.lifecycle?.notice() ?? null,
    adapterDeps: adapterDepsFor,
    seen: (call) => {
      deps.hooks.seen(call);
      if (call.sessionId === null || call.kind === null || call.status >= 300) return;
      agentTime.seen({ sessionId: call.sessionId, host: call.host, kind: call.kind, elapsedMs: call.elapsedMs, nowMs: call.nowMs });
      if (call.kind === 'session_end') agentTime.finish(call.sessionId, call.nowMs);
    },
  };
  return {
    ...api,
    // A hook waits little for the write lock: past that its event is spooled (busy-spill.ts).
    hostIntake: intakeWaiting(HOOK_STORE_WAIT_MS),
    // A replay has no one waiting on it: it does not wait at all, and is tried again soon.
    replayIntake: intakeWaiting(0),
    stopTexts,
    sessionQuiet: (sessionId, nowMs) => {
      intake.queueMissingSummary(sessionId, nowMs);
      agentTime.finish(sessionId, nowMs);
    },
  };
}
