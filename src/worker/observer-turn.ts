import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import { buildBatchPrompt, OBSERVER_PROMPT_VERSION, type Prompt, type TurnBatch } from '../observer/prompts.js';
import { eventViewOf } from '../observer/event-view.js';
import type { ObserverProvider } from '../providers/types.js';
import type { QueueMessage, Store } from '../store/index.js';
import { processTurn } from './turn-processor.js';
import { hashesToCheck } from '../observer/claim-check.js';
import { absolutePathKey } from '../observer/file-claims.js';
import { decideObserverOutput } from '../observer/index.js';
import type { CommitVerifier } from './commit-verifier.js';
import type { LoopBatch, RunTurn } from './loop-types.js';
import type { TurnRecord } from '../observer/turn-record.js';
import { redactTextInto, totalRedactions, type RedactionCounts } from '../redaction/index.js';

/** Reply budget for one observer call: the turn's observations and its summary. */
const MAX_OUTPUT_TOKENS = 4096;
/** Titles of the session's earlier observations the summary sees. */
const RECENT_TITLES = 30;

export interface ObserverTurnDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Checks claimed commit hashes against the repository (async, one git process per turn). */
  verifier?: CommitVerifier;
  recordTurn(turn: TurnRecord, nowMs: number): void;
  /** The final guard's finds (edge observer_guard): non-zero only if an edge before it missed one. */
  reportRedactions?(edge: 'observer_guard', counts: RedactionCounts, nowMs: number): void;
}

/**
 * The last look before text leaves for the LLM provider. Queue payloads were redacted when they
 * arrived; what this can still catch is text stored by an older version (session prompts,
 * observation titles) or an edge that missed one.
 */
function guardPrompt(prompt: Prompt, counts: RedactionCounts): Prompt {
  return { system: redactTextInto(prompt.system, counts), messages: prompt.messages.map((m) => ({ ...m, content: redactTextInto(m.content, counts) })) };
}

/**
 * One observer call for one batch (an agent turn): build the prompt of exactly these messages,
 * call the provider, hand the reply to the turn processor. Each call is self-contained (the
 * stable system prompt + one user message), so a reply can only ever answer — and confirm —
 * the batch it was asked about.
 */
export function createRunTurn(deps: ObserverTurnDeps): RunTurn {
  return async (batch: LoopBatch, provider: ObserverProvider, signal: AbortSignal) => {
    const claimed = batch.messages.map((m) => deps.store.queue.get(m.id));
    if (claimed.some((m) => m === null)) throw new Error(`a claimed message of session ${batch.sessionId} vanished from the queue`);
    const messages = claimed as QueueMessage[];
    const session = deps.store.sessions.get(batch.sessionId);
    const sessionInfo = { project: session?.project ?? null, userPrompt: deps.store.sessions.latestPrompt(batch.sessionId) ?? session?.prompt ?? null };
    const tools = messages.filter((m) => m.kind === 'observation');
    const end = messages.find((m) => m.kind === 'summary');
    const turn: TurnBatch = {
      events: tools.flatMap((m) => eventViewOf(m.payload) ?? []),
      turnEnd:
        end && end.payload.kind === 'stop'
          ? {
              lastAssistantMessage: end.payload.last_assistant_message ?? null,
              recentObservations: deps.store.observations.recentForSession(batch.sessionId, RECENT_TITLES),
            }
          : null,
    };
    const prompt = buildBatchPrompt(turn, sessionInfo);
    const startedMs = deps.clock.now();
    const guardCounts: RedactionCounts = {};
    const guarded = guardPrompt(prompt, guardCounts);
    if (totalRedactions(guardCounts) > 0) deps.reportRedactions?.('observer_guard', guardCounts, startedMs);
    const reply = await provider.complete({
      ...guarded,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      signal,
      spend: { purpose: 'observe', sessionId: batch.sessionId, events: tools.length },
    });
    // A reply that arrives after the loop gave up on the call must not confirm a released batch.
    signal.throwIfAborted();
    const decision = decideObserverOutput(reply.text);
    // Claims are checked before the turn's transaction, without blocking the event loop.
    const hashes = decision.outcome === 'parsed' ? hashesToCheck(decision.observations, decision.summary) : [];
    const eventCwd = [...tools].reverse().find((m) => m.payload.cwd)?.payload.cwd ?? null;
    const cwd = eventCwd ?? session?.cwd ?? null;
    const commitVerdicts = hashes.length > 0 && deps.verifier ? await deps.verifier.check(cwd, hashes) : new Map();
    // File claims are looked up, not the session's whole history: one indexed query per turn.
    // A worktree's files are under its own checkout, not the repository's main one.
    const root = session?.checkout ?? (session?.project?.startsWith('/') ? session.project : cwd);
    const claimedFiles = decision.observations.flatMap((o) => o.files_modified).map((f) => absolutePathKey(f, root));
    const written = deps.store.toolEvents.writtenAmong(batch.sessionId, [...new Set(claimedFiles)]);
    const readsByMessage = new Map(deps.store.toolEvents.byQueueIds(tools.map((m) => m.id)).map((row) => [row.queueId, row.filesRead] as const));
    const nowMs = deps.clock.now();
    return processTurn(
      { store: deps.store, log: deps.log, onCommit: (record) => deps.recordTurn(record, nowMs) },
      {
        messages,
        session: { project: session?.project ?? null, checkout: session?.checkout ?? null },
        reply,
        decision,
        commitVerdicts,
        evidence: { written, readsByMessage },
        signal,
        provider: provider.name,
        promptVersion: OBSERVER_PROMPT_VERSION,
        durationMs: nowMs - startedMs,
        nowMs,
      },
    );
  };
}
