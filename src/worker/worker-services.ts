import type { Clock } from '../clock.js';
import { buildContext, createContextQuery, parseBudget } from '../context/index.js';
import type { Logger } from '../log.js';
import type { HookCallInfo, WorkerServices } from '../server/app.js';
import type { Store } from '../store/index.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { Telemetry } from '../telemetry/runtime.js';
import { healthReport } from './health-report.js';
import type { HookAccounting } from './hook-accounting.js';
import type { ObserverLoop } from './observer-loop.js';
import { projectLabel } from './project-of.js';
import { lastAssistantTextFor } from '../hosts/adapter-deps.js';
import { createEventIntake } from './event-intake.js';

export interface ServiceDeps {
  store: Store;
  loop: ObserverLoop;
  telemetry: Telemetry;
  hooks: HookAccounting;
  projectOf: (cwd: string | null | undefined) => string | null;
  clock: Clock;
  log: Logger;
  version: string;
  providerName: string;
  port(): number;
  token: string;
  /** A hook reported the session's transcript (watched for what the hooks miss). */
  onTranscript?: (sessionId: string, transcriptPath: string) => void;
  /** A session ended: what its transcript holds beyond what the hooks delivered may be mined. */
  onSessionEnded?: (sessionId: string, transcriptPath: string | null) => void;
}

/** The worker's side of each route: store writes, loop wake-ups, context, accounting. */
export function createWorkerServices(deps: ServiceDeps): WorkerServices {
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
  const intake = createEventIntake({
    store,
    projectOf: deps.projectOf,
    write,
    wake: (sessionId) => loop.wake(sessionId),
    onTranscript: deps.onTranscript,
    sessionEnded: (sessionId, transcriptPath) => {
      loop.sessionEnded(sessionId);
      deps.onSessionEnded?.(sessionId, transcriptPath);
    },
    lastAssistantText: (transcriptPath, platform) => lastAssistantTextFor(platform, transcriptPath),
  });
  const health = () => healthReport(loop.status(), store.queue.depth(), deps.hooks.stats(), deps.providerName);

  return {
    clock,
    log: deps.log,
    version: deps.version,
    providerName: deps.providerName,
    port: deps.port,
    token: () => deps.token,
    accept: (event, nowMs) => intake.accept(event, nowMs),
    injectContext: ({ project, cwd, budgetRaw, nowMs }) => {
      const budget = parseBudget(budgetRaw);
      if (typeof budget !== 'number') return { ok: false, field: 'budget_tokens', message: budget.error };
      const key = project ?? deps.projectOf(cwd);
      try {
        const result = buildContext(contextQuery, { project: key, label: projectLabel(key), budgetTokens: budget, nowMs });
        telemetry.recordInjection({ ok: true, tokensInjected: result.tokensInjected, observationsInjected: result.observationsInjected, tokensSavedVsNaive: result.tokensSavedVsNaive }, nowMs);
        return { ok: true, markdown: result.markdown };
      } catch (error) {
        telemetry.recordInjection({ ok: false, tokensInjected: 0, observationsInjected: 0, tokensSavedVsNaive: null }, nowMs);
        throw error;
      }
    },
    hookCall: (info: HookCallInfo) => deps.hooks.seen(info),
    health,
    telemetryStatus: (nowMs) => ({ ...telemetry.status(nowMs), worker: { running: true, pid: process.pid, port: deps.port(), ...health() } }),
    reportError: (error, stage) => telemetry.captureException(error, stage, clock.now()),
  };
}
