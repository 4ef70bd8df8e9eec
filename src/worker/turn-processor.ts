import type { Logger } from '../log.js';
import { applyCommitVerdicts, type CommitVerdict } from '../observer/claim-check.js';
import { pathKey, reconcileFileClaims } from '../observer/file-claims.js';
import { decideObserverOutput, previewOutput } from '../observer/index.js';
import type { ParseDecision } from '../observer/types.js';
import type { TurnRecord } from '../observer/turn-record.js';
import type { CompletionResult } from '../providers/types.js';
import type { ProviderName } from '../vocabulary/provider-name.js';
import type { ObservationType } from '../vocabulary/observation.js';
import type { QueueMessage, Store } from '../store/index.js';

export interface TurnInput {
  /** The claimed batch this reply answers, in queue order; the only messages this turn may confirm. */
  messages: QueueMessage[];
  /** `checkout`: the worktree (or main checkout) the session ran in; relative paths are under it. */
  session: { project: string | null; checkout?: string | null };
  reply: CompletionResult;
  /** The reply's drop-or-parse decision (made once, before claims were checked). */
  decision?: ParseDecision;
  /** What the repository said about each claimed hash (checked at the edge, before this call). */
  commitVerdicts?: ReadonlyMap<string, CommitVerdict>;
  /** Which claimed files the session's tool events wrote, and what each tool event of the batch read (by queue id). */
  evidence?: { written: ReadonlySet<string>; readsByMessage: ReadonlyMap<number, readonly string[]> };
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
 * Parse or drop, apply the checked claims, then persist + confirm every message of the batch +
 * count, in one transaction. Each observation's provenance is the events it names in `<sources>`
 * (the prompt's `e1`, `e2`, … mapped back to queue ids); one that names none, or only events the
 * batch does not hold, is credited to every event of the batch. A dropped reply confirms the batch
 * and leaves one log line (class and a short preview); its content changes nothing. Synchronous:
 * every check that needs I/O happened before.
 */
export function processTurn(deps: TurnDeps, input: TurnInput): TurnRecord {
  const { messages, reply } = input;
  const first = messages[0];
  if (!first) throw new Error('an observer turn needs at least one claimed message');
  const decision = input.decision ?? decideObserverOutput(reply.text);
  const verdicts = input.commitVerdicts ?? new Map<string, CommitVerdict>();
  const checked = applyCommitVerdicts(decision.observations, decision.summary, (hash) => verdicts.get(hash) ?? 'unverifiable');
  const root = projectRoot(input.session.checkout ?? input.session.project, first.payload);
  const toKey = (p: string) => pathKey(p, root);
  const toolIds = messages.filter((m) => m.kind === 'observation').map((m) => m.id);
  const allIds = messages.map((m) => m.id);
  let fileClaimsRemoved = 0;
  const observations = checked.observations.map((observation, index) => {
    const sources = sourceIds(decision.sources[index] ?? [], toolIds);
    const sourceMessageIds = sources.length > 0 ? sources : toolIds.length > 0 ? toolIds : allIds;
    if (!input.evidence) return { observation, sourceMessageIds };
    const reads = sourceMessageIds.flatMap((id) => input.evidence?.readsByMessage.get(id) ?? []);
    const reconciled = reconcileFileClaims(observation, { written: keys(input.evidence.written, toKey) }, reads, toKey);
    fileClaimsRemoved += reconciled.removed;
    return { observation: reconciled.observation, sourceMessageIds };
  });
  const summary = checked.summary && Object.entries(checked.summary).some(([k, v]) => k !== 'claims' && v !== '') ? checked.summary : null;

  const tokens = reply.usage ? { input: reply.usage.inputTokens, output: reply.usage.outputTokens } : null;
  const byType: Partial<Record<ObservationType, number>> = {};
  for (const { observation } of observations) byType[observation.type] = (byType[observation.type] ?? 0) + 1;

  const turn: TurnRecord = {
    sessionId: first.sessionId,
    messageIds: allIds,
    events: toolIds.length,
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
    sessionId: first.sessionId,
    project: input.session.project,
    sourceMessageIds: allIds,
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
    for (const { observation, sourceMessageIds } of observations)
      deps.store.observations.insert(observation, { ...provenance, sourceMessageIds, discoveryTokens: share }, observation.claims);
    if (summary) deps.store.summaries.insert(summary, provenance, summary.claims);
    for (const id of allIds) if (!deps.store.queue.confirm(id)) throw new Error(`message ${id} was not claimed; refusing to confirm another`);
    deps.onCommit?.(turn);
  })();

  if (decision.outcome === 'dropped') {
    deps.log.warn('observer output dropped', {
      session_id: first.sessionId,
      message_ids: allIds,
      class: decision.class,
      preview: previewOutput(reply.text, 200),
    });
  }
  if (checked.rejected > 0 || fileClaimsRemoved > 0) {
    deps.log.warn('false claims removed before storing', {
      session_id: first.sessionId,
      message_ids: allIds,
      commits_rejected: checked.rejected,
      observations_refused: checked.refused,
      file_claims_removed: fileClaimsRemoved,
    });
  }
  return turn;
}

/** The queue ids an observation's `<sources>` name: `e3` (or `3`) is the batch's third tool event. */
function sourceIds(named: readonly string[], toolIds: readonly number[]): number[] {
  const ids = new Set<number>();
  for (const ref of named) {
    const match = /(\d+)/.exec(ref);
    const index = match ? Number(match[1]) - 1 : -1;
    const id = toolIds[index];
    if (id !== undefined) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
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
