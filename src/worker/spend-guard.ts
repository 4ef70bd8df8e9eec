import type { Clock } from '../clock.js';
import { ProviderError, type CompletionRequest, type CompletionResult, type ObserverProvider, type TokenLimits } from '../providers/types.js';
import type { ObserverBudget } from './observer-budget.js';

/** Framing tokens a chat API adds around a prompt (roles, separators), at most. */
const API_OVERHEAD_TOKENS = 64;

/**
 * A call's upper bound in tokens: its prompt's UTF-8 bytes (a token covers at least one byte),
 * the provider's own overhead, and the output cap. Pure.
 */
export function tokenBound(request: Pick<CompletionRequest, 'system' | 'messages' | 'maxOutputTokens'>, limits: TokenLimits): number {
  let bytes = Buffer.byteLength(request.system, 'utf8');
  for (const message of request.messages) bytes += Buffer.byteLength(message.content, 'utf8');
  return bytes + limits.overheadTokens + limits.outputTokens;
}

export function limitsOf(provider: Pick<ObserverProvider, 'limits'>, request: Pick<CompletionRequest, 'maxOutputTokens'>): TokenLimits {
  return provider.limits?.(request) ?? { overheadTokens: API_OVERHEAD_TOKENS, outputTokens: request.maxOutputTokens, outputEnforced: true };
}

/** Provider refusals generate nothing: the call counts 0 against the budget. */
const REFUSED = new Set(['auth', 'quota', 'rate_limit', 'overloaded', 'bad_request']);

/**
 * Every model call the worker makes — the observer's and compaction's — goes through this: its
 * bound is reserved before the call (or BudgetExhaustedError is thrown and nothing is called), and
 * its usage, cost and outcome settled in the spend ledger after it.
 */
export function withSpendGuard(provider: ObserverProvider, budget: ObserverBudget, clock: Clock): ObserverProvider {
  return {
    name: provider.name,
    model: provider.model,
    ...(provider.recordedReplies ? { recordedReplies: provider.recordedReplies } : {}),
    ...(provider.limits ? { limits: provider.limits } : {}),
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      const tag = request.spend ?? { purpose: 'compact' as const, sessionId: null, events: 0 };
      const bound = tokenBound(request, limitsOf(provider, request));
      const id = budget.reserve({ ...tag, provider: provider.name, model: provider.model, boundTokens: bound }, clock.now());
      let result: CompletionResult;
      try {
        result = await provider.complete(request);
      } catch (error) {
        const refused = error instanceof ProviderError && REFUSED.has(error.kind);
        budget.settle(id, {
          endedAt: clock.now(),
          outcome: refused ? 'failed' : 'unknown',
          model: null,
          tokensIn: null,
          tokensOut: null,
          costUsd: null,
          costEstimated: false,
        });
        throw error;
      }
      budget.settle(id, {
        endedAt: clock.now(),
        outcome: 'ok',
        model: result.model,
        tokensIn: result.usage?.inputTokens ?? null,
        tokensOut: result.usage?.outputTokens ?? null,
        costUsd: result.costUsd,
        costEstimated: result.costEstimated === true,
      });
      return result;
    },
  };
}
