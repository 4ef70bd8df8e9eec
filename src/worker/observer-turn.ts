import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import { buildObservationPrompt, buildSummaryPrompt, OBSERVER_PROMPT_VERSION } from '../observer/prompts.js';
import type { ObserverProvider } from '../providers/types.js';
import type { Store } from '../store/index.js';
import { processTurn } from './turn-processor.js';
import type { ClaimVerifier } from '../observer/verify.js';
import type { LoopMessage, RunTurn } from './observer-loop.js';
import type { TurnRecord } from './turn-record.js';

/** Reply budget for one observer call: a few observations or one summary. */
const MAX_OUTPUT_TOKENS = 4096;

export interface ObserverTurnDeps {
  store: Store;
  provider: ObserverProvider;
  clock: Clock;
  log: Logger;
  verify?: ClaimVerifier;
  recordTurn(turn: TurnRecord, nowMs: number): void;
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
    const payload = (claimed.payload ?? {}) as Record<string, unknown>;
    const prompt =
      claimed.kind === 'observation'
        ? buildObservationPrompt(
            {
              toolName: typeof payload.tool_name === 'string' ? payload.tool_name : 'unknown',
              toolInput: payload.tool_input,
              toolResponse: payload.tool_response,
              failure: typeof payload.error === 'string' ? { error: payload.error, interrupted: payload.is_interrupt === true } : null,
              cwd: typeof payload.cwd === 'string' ? payload.cwd : null,
              atMs: typeof payload.at === 'number' ? payload.at : claimed.createdAt,
            },
            sessionInfo,
          )
        : buildSummaryPrompt(
            {
              lastAssistantMessage: typeof payload.last_assistant_message === 'string' ? payload.last_assistant_message : null,
              recentObservations: deps.store.observations.recentForSession(message.sessionId, 30),
            },
            sessionInfo,
          );
    const startedMs = deps.clock.now();
    const reply = await deps.provider.complete({ ...prompt, maxOutputTokens: MAX_OUTPUT_TOKENS, signal });
    // A reply that arrives after the loop gave up on the call must not confirm a released message.
    signal.throwIfAborted();
    const nowMs = deps.clock.now();
    return processTurn(
      {
        store: deps.store,
        log: deps.log,
        ...(deps.verify ? { verify: deps.verify } : {}),
        onCommit: (turn) => deps.recordTurn(turn, nowMs),
      },
      {
        message: claimed,
        session: { project: session?.project ?? null },
        reply,
        provider: deps.provider.name,
        promptVersion: OBSERVER_PROMPT_VERSION,
        durationMs: nowMs - startedMs,
        nowMs,
      },
    );
  };
}
