import type { Clock } from '../clock.js';
import { buildContext, createContextQuery, parseBudget } from '../context/index.js';
import type { Logger } from '../log.js';
import type { HookCallInfo, WorkerServices } from '../server/app.js';
import type { Store } from '../store/index.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { Telemetry } from '../telemetry/runtime.js';
import { healthReport, type StoreHealth } from './health-report.js';
import type { HookAccounting } from './hook-accounting.js';
import type { ObserverLoop } from './observer-loop.js';
import { projectLabel } from './project-of.js';
import { readLastAssistantText } from '../hook/transcript-tail.js';
import { redactTextInto, redactValueInto, totalRedactions, type RedactionCounts } from '../memory/redact.js';
import type { RedactionEdge } from '../telemetry/index.js';

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
  /** The store's size, budget and last retention pass, for /health. */
  storeHealth?: () => StoreHealth;
  /** Secrets replaced before a write, by where they were caught (counts only). */
  reportRedactions(edge: RedactionEdge, counts: RedactionCounts, nowMs: number): void;
  /** Replaces the request-body redactor (benchmarks measure the API without it); the real one by default. */
  redactBody?: <T>(value: T, counts: RedactionCounts) => T;
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
  /**
   * The Stop hook runs in the background and Claude Code kills background hooks when it exits,
   * so the last turn's summary request may never arrive. At SessionEnd, if the session's latest
   * prompt has no summary request, one is queued from the transcript's last assistant message
   * (same dedup key as Stop's, so a late Stop is a duplicate).
   */
  const queueMissingSummary = (sessionId: string, nowMs: number) => {
    const prompt = store.sessions.prompts(sessionId).at(-1);
    if (!prompt?.prompt_id || store.queue.hasSeen(sessionId, `summary:${prompt.prompt_id}`)) return;
    const transcriptPath = store.sessions.get(sessionId)?.transcriptPath ?? null;
    const raw = readLastAssistantText(transcriptPath);
    if (!raw) return;
    const counts: RedactionCounts = {};
    const last = redactTextInto(raw, counts);
    if (totalRedactions(counts) > 0) deps.reportRedactions('transcript', counts, nowMs);
    const result = write(() => store.queue.enqueue({ sessionId, kind: 'summary', toolUseId: `summary:${prompt.prompt_id}`, payload: { last_assistant_message: last, prompt_id: prompt.prompt_id, transcript_path: transcriptPath, source: 'session_end', at: nowMs }, nowMs }));
    if (result.status === 'queued') loop.wake(sessionId);
  };
  const health = () => healthReport(loop.status(), store.queue.depth(), deps.hooks.stats(), deps.providerName, deps.storeHealth?.());

  return {
    clock,
    log: deps.log,
    version: deps.version,
    providerName: deps.providerName,
    port: deps.port,
    token: () => deps.token,
    sessions: {
      init: (input) => {
        if (input.transcript_path) deps.onTranscript?.(input.session_id, input.transcript_path);
        write(() =>
          store.sessions.init({
            sessionId: input.session_id,
            project: input.project ?? deps.projectOf(input.cwd),
            prompt: input.prompt ?? null,
            promptId: input.prompt_id ?? null,
            platform: input.platform ?? null,
            cwd: input.cwd ?? null,
            transcriptPath: input.transcript_path ?? null,
            source: input.source ?? null,
            nowMs: input.nowMs,
          }),
        );
      },
      end: (input) => {
        const known = write(() => store.sessions.end(input.session_id, input.nowMs, { reason: input.reason ?? null, transcriptPath: input.transcript_path ?? null }));
        if (known) queueMissingSummary(input.session_id, input.nowMs);
        if (known) {
          loop.sessionEnded(input.session_id);
          deps.onSessionEnded?.(input.session_id, input.transcript_path ?? store.sessions.get(input.session_id)?.transcriptPath ?? null);
        }
        return known;
      },
    },
    enqueue: (input) => {
      if (input.transcriptPath) deps.onTranscript?.(input.sessionId, input.transcriptPath);
      const result = write(() => {
        if (!store.sessions.get(input.sessionId)) {
          store.sessions.init({ sessionId: input.sessionId, project: deps.projectOf(input.cwd), cwd: input.cwd, transcriptPath: input.transcriptPath, nowMs: input.nowMs });
        }
        return store.queue.enqueue({ sessionId: input.sessionId, kind: input.kind, toolUseId: input.dedupKey, payload: input.payload, nowMs: input.nowMs });
      });
      if (result.status === 'queued') loop.wake(input.sessionId);
      return result;
    },
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
    redact: (value, nowMs) => {
      const counts: RedactionCounts = {};
      const clean = (deps.redactBody ?? redactValueInto)(value, counts);
      if (totalRedactions(counts) > 0) deps.reportRedactions('hook_api', counts, nowMs);
      return clean;
    },
    health,
    telemetryStatus: (nowMs) => ({ ...telemetry.status(nowMs), worker: { running: true, pid: process.pid, port: deps.port(), ...health() } }),
    reportError: (error, stage) => telemetry.captureException(error, stage, clock.now()),
  };
}
