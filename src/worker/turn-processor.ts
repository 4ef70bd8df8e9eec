import type { Logger } from '../log.js';
import { decideObserverOutput, previewOutput } from '../observer/index.js';
import type { ObservationType } from '../observer/types.js';
import { verifyClaims, type ClaimVerifier } from '../observer/verify.js';
import type { CompletionResult, ProviderName } from '../providers/types.js';
import type { QueueMessage, Store } from '../store/index.js';
import type { TurnRecord } from './turn-record.js';

export interface TurnInput {
  /** The claimed message this reply answers; the only one this turn may confirm. */
  message: QueueMessage;
  session: { project: string | null };
  reply: CompletionResult;
  provider: ProviderName;
  promptVersion: string;
  durationMs: number;
  nowMs: number;
}

export interface TurnDeps {
  store: Pick<Store, 'db' | 'queue' | 'observations' | 'summaries'>;
  log: Logger;
  verify?: ClaimVerifier;
  /** Runs inside the transaction that persists and confirms (telemetry folds its count here). */
  onCommit?: (turn: TurnRecord) => void;
}

/**
 * Parse or drop, then persist + confirm + count in one transaction. A dropped reply confirms
 * its message and leaves one log line (class and a short preview); its content changes nothing.
 */
export function processTurn(deps: TurnDeps, input: TurnInput): TurnRecord {
  const { message, reply } = input;
  const decision = decideObserverOutput(reply.text);
  const cwd = readCwd(message.payload);
  const verified =
    decision.outcome === 'parsed' && deps.verify
      ? verifyClaims({ observations: decision.observations, summary: decision.summary, cwd }, deps.verify)
      : { observations: decision.observations, summary: decision.summary, rejected: 0 };

  const tokens = reply.usage ? { input: reply.usage.inputTokens, output: reply.usage.outputTokens } : null;
  const byType: Partial<Record<ObservationType, number>> = {};
  for (const o of verified.observations) byType[o.type] = (byType[o.type] ?? 0) + 1;
  const summaryCreated = verified.summary !== null && Object.values(verified.summary).some((v) => v !== '');

  const turn: TurnRecord = {
    sessionId: message.sessionId,
    messageId: message.id,
    kind: message.kind,
    outcome: 'ok',
    parse: decision.outcome,
    outputClass: decision.class,
    abortReason: null,
    observationsByType: byType,
    observationsCreated: verified.observations.length,
    summaryCreated,
    claimsRejected: verified.rejected,
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
  const share = tokens && verified.observations.length > 0 ? (tokens.input + tokens.output) / verified.observations.length : null;

  deps.store.db.transaction(() => {
    for (const observation of verified.observations) deps.store.observations.insert(observation, { ...provenance, discoveryTokens: share });
    if (summaryCreated && verified.summary) deps.store.summaries.insert(verified.summary, provenance);
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
  } else if (verified.rejected > 0) {
    deps.log.warn('unverifiable claims rejected', { session_id: message.sessionId, message_id: message.id, rejected: verified.rejected });
  }
  return turn;
}

function readCwd(payload: unknown): string | null {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' && cwd !== '' ? cwd : null;
}
