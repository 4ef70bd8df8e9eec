import type { Logger } from '../log.js';
import { applyCommitVerdicts, type CommitVerdict } from '../observer/claim-check.js';
import { pathKey, reconcileFileClaims, type FileEvidence } from '../observer/file-claims.js';
import { decideObserverOutput, previewOutput } from '../observer/index.js';
import type { ParseDecision } from '../observer/types.js';
import type { TurnRecord } from '../observer/turn-record.js';
import type { CompletionResult } from '../providers/types.js';
import type { ProviderName } from '../vocabulary/provider-name.js';
import type { ObservationType } from '../vocabulary/observation.js';
import type { QueueMessage, Store } from '../store/index.js';

export interface TurnInput {
  /** The claimed message this reply answers; the only one this turn may confirm. */
  message: QueueMessage;
  /** `checkout`: the worktree (or main checkout) the session ran in; relative paths are under it. */
  session: { project: string | null; checkout?: string | null };
  reply: CompletionResult;
  /** The reply's drop-or-parse decision (made once, before claims were checked). */
  decision?: ParseDecision;
  /** What the repository said about each claimed hash (checked at the edge, before this call). */
  commitVerdicts?: ReadonlyMap<string, CommitVerdict>;
  /** Which claimed files the session's tool events wrote, and what the observed call read. */
  evidence?: FileEvidence & { observedReads: readonly string[] };
  provider: ProviderName;
  promptVersion: string;
  durationMs: number;
  nowMs: number;
  /** Aborted when the loop gave up on this call: nothing may be persisted or confirmed then. */
  signal?: AbortSignal;
}

export interface TurnDeps {
  store: Pick<Store, 'db' | 'queue' | 'observations' | 'summaries'>;
  log: Logger;
  /** Runs inside the transaction that persists and confirms (telemetry folds its count here). */
  onCommit?: (turn: TurnRecord) => void;
}

/**
 * Parse or drop, apply the checked claims, then persist + confirm + count in one transaction.
 * A dropped reply confirms its message and leaves one log line (class and a short preview); its
 * content changes nothing. Synchronous: every check that needs I/O happened before.
 */
export function processTurn(deps: TurnDeps, input: TurnInput): TurnRecord {
  const { message, reply } = input;
  const decision = input.decision ?? decideObserverOutput(reply.text);
  const verdicts = input.commitVerdicts ?? new Map<string, CommitVerdict>();
  const checked = applyCommitVerdicts(decision.observations, decision.summary, (hash) => verdicts.get(hash) ?? 'unverifiable');
  const root = projectRoot(input.session.checkout ?? input.session.project, message.payload);
  const toKey = (p: string) => pathKey(p, root);
  let fileClaimsRemoved = 0;
  const observations = checked.observations.map((observation) => {
    if (!input.evidence) return observation;
    const reconciled = reconcileFileClaims(observation, { written: keys(input.evidence.written, toKey) }, input.evidence.observedReads, toKey);
    fileClaimsRemoved += reconciled.removed;
    return reconciled.observation;
  });
  const summary = checked.summary && Object.entries(checked.summary).some(([k, v]) => k !== 'claims' && v !== '') ? checked.summary : null;

  const tokens = reply.usage ? { input: reply.usage.inputTokens, output: reply.usage.outputTokens } : null;
  const byType: Partial<Record<ObservationType, number>> = {};
  for (const o of observations) byType[o.type] = (byType[o.type] ?? 0) + 1;

  const turn: TurnRecord = {
    sessionId: message.sessionId,
    messageId: message.id,
    kind: message.kind,
    outcome: 'ok',
    parse: decision.outcome,
    outputClass: decision.class,
    abortReason: null,
    observationsByType: byType,
    observationsCreated: observations.length,
    summaryCreated: summary !== null,
    claimsRejected: checked.rejected,
    claimsUnverifiable: checked.unverifiable,
    fileClaimsRemoved,
    tokens,
    costUsd: reply.costUsd,
    durationMs: input.durationMs,
    provider: input.provider,
    model: reply.model,
  };

  const provenance = {
    sessionId: message.sessionId,
    project: input.session.project,
    sourceMessageIds: [message.id],
    provider: input.provider,
    model: reply.model,
    promptVersion: input.promptVersion,
    createdAt: input.nowMs,
  };
  // The turn's tokens are shared by its observations, so summing shares never counts a turn twice.
  const share = tokens && observations.length > 0 ? (tokens.input + tokens.output) / observations.length : null;

  // Checked right before the synchronous transaction: a call the loop abandoned cannot commit.
  input.signal?.throwIfAborted();
  deps.store.db.transaction(() => {
    for (const observation of observations) deps.store.observations.insert(observation, { ...provenance, discoveryTokens: share }, observation.claims);
    if (summary) deps.store.summaries.insert(summary, provenance, summary.claims);
    if (!deps.store.queue.confirm(message.id)) throw new Error(`message ${message.id} was not claimed; refusing to confirm another`);
    deps.onCommit?.(turn);
  })();

  if (decision.outcome === 'dropped') {
    deps.log.warn('observer output dropped', {
      session_id: message.sessionId,
      message_id: message.id,
      class: decision.class,
      preview: previewOutput(reply.text, 200),
    });
  }
  if (checked.rejected > 0 || fileClaimsRemoved > 0) {
    deps.log.warn('false claims removed before storing', {
      session_id: message.sessionId,
      message_id: message.id,
      commits_rejected: checked.rejected,
      observations_refused: checked.refused,
      file_claims_removed: fileClaimsRemoved,
    });
  }
  return turn;
}

/** Paths compare relative to the repository root: the project when it is a path, else the cwd. */
function projectRoot(project: string | null, payload: unknown): string | null {
  if (project?.startsWith('/')) return project;
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' && cwd.startsWith('/') ? cwd : null;
}

function keys(paths: ReadonlySet<string>, toKey: (p: string) => string): Set<string> {
  return new Set([...paths].map(toKey));
}
