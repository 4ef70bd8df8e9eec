import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import { buildObservationPrompt, buildSummaryPrompt, OBSERVER_PROMPT_VERSION } from '../observer/prompts.js';
import type { ObserverProvider } from '../providers/types.js';
import type { Store } from '../store/index.js';
import { processTurn } from './turn-processor.js';
import { hashesToCheck } from '../observer/claim-check.js';
import { absolutePathKey } from '../observer/file-claims.js';
import { decideObserverOutput } from '../observer/index.js';
import type { CommitVerifier } from './commit-verifier.js';
import type { LoopMessage, RunTurn } from './observer-loop.js';
import type { TurnRecord } from '../observer/turn-record.js';
import { redactTextInto, totalRedactions, type RedactionCounts } from '../redaction/index.js';
import type { Prompt } from '../observer/prompts.js';

/** Reply budget for one observer call: a few observations or one summary. */
const MAX_OUTPUT_TOKENS = 4096;

export interface ObserverTurnDeps {
  store: Store;
  provider: ObserverProvider;
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
 * One observer call: build the prompt for exactly this message, call the provider, hand the
 * reply to the turn processor. Each call is self-contained (system + one user message), so a
 * reply can only ever answer — and confirm — the message it was asked about.
 */
export function createRunTurn(deps: ObserverTurnDeps): RunTurn {
  return async (message: LoopMessage, signal: AbortSignal) => {
    const claimed = deps.store.queue.get(message.id);
    if (!claimed) throw new Error(`claimed message ${message.id} vanished from the queue`);
    const session = deps.store.sessions.get(message.sessionId);
    const sessionInfo = { project: session?.project ?? null, userPrompt: deps.store.sessions.latestPrompt(message.sessionId) ?? session?.prompt ?? null };
    const event = claimed.payload;
    const prompt =
      event.kind === 'stop'
        ? buildSummaryPrompt(
            { lastAssistantMessage: event.last_assistant_message ?? null, recentObservations: deps.store.observations.recentForSession(message.sessionId, 30) },
            sessionInfo,
          )
        : buildObservationPrompt(
            {
              toolName: event.tool_name,
              toolInput: event.tool_input,
              toolResponse: event.tool_response,
              failure: event.kind === 'post_tool_use_failure' ? { error: event.error, interrupted: event.is_interrupt === true } : null,
              cwd: event.cwd ?? null,
              atMs: event.at,
              subagent: event.agent_id || event.agent_type ? { id: event.agent_id ?? null, type: event.agent_type ?? null } : null,
            },
            sessionInfo,
          );
    const startedMs = deps.clock.now();
    const guardCounts: RedactionCounts = {};
    const guarded = guardPrompt(prompt, guardCounts);
    if (totalRedactions(guardCounts) > 0) deps.reportRedactions?.('observer_guard', guardCounts, startedMs);
    const reply = await deps.provider.complete({ ...guarded, maxOutputTokens: MAX_OUTPUT_TOKENS, signal });
    // A reply that arrives after the loop gave up on the call must not confirm a released message.
    signal.throwIfAborted();
    const decision = decideObserverOutput(reply.text);
    // Claims are checked before the turn's transaction, without blocking the event loop.
    const hashes = decision.outcome === 'parsed' ? hashesToCheck(decision.observations, decision.summary) : [];
    const cwd = event.cwd ? event.cwd : (session?.cwd ?? null);
    const commitVerdicts = hashes.length > 0 && deps.verifier ? await deps.verifier.check(cwd, hashes) : new Map();
    // File claims are looked up, not the session's whole history: one indexed query per turn.
    // A worktree's files are under its own checkout, not the repository's main one.
    const root = session?.checkout ?? (session?.project?.startsWith('/') ? session.project : cwd);
    const claimedFiles = decision.observations.flatMap((o) => o.files_modified).map((f) => absolutePathKey(f, root));
    const written = deps.store.toolEvents.writtenAmong(message.sessionId, [...new Set(claimedFiles)]);
    const observed = claimed.kind === 'observation' ? deps.store.toolEvents.byQueueIds([claimed.id])[0] : undefined;
    const nowMs = deps.clock.now();
    return processTurn(
      { store: deps.store, log: deps.log, onCommit: (turn) => deps.recordTurn(turn, nowMs) },
      {
        message: claimed,
        session: { project: session?.project ?? null, checkout: session?.checkout ?? null },
        reply,
        decision,
        commitVerdicts,
        evidence: { written, observedReads: observed?.filesRead ?? [] },
        signal,
        provider: deps.provider.name,
        promptVersion: OBSERVER_PROMPT_VERSION,
        durationMs: nowMs - startedMs,
        nowMs,
      },
    );
  };
}
