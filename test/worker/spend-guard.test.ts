import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_CLI } from '../../src/providers/cli/claude-code.js';
import { CODEX_CLI } from '../../src/providers/cli/codex.js';
import { ProviderError, type ObserverProvider } from '../../src/providers/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { BudgetExhaustedError, createObserverBudget } from '../../src/worker/observer-budget.js';
import { limitsOf, tokenBound, withSpendGuard } from '../../src/worker/spend-guard.js';
import { makeTempDir } from '../support/temp-dir.js';

const request = { system: 'sys ✓', messages: [{ role: 'user' as const, content: 'événements' }], maxOutputTokens: 500 };
const NOW = Date.UTC(2026, 10, 27, 9);

describe('a call’s token bound', () => {
  it('is the prompt’s UTF-8 bytes, the provider’s own overhead and the output cap', () => {
    const bytes = Buffer.byteLength('sys ✓') + Buffer.byteLength('événements');
    expect(tokenBound(request, limitsOf({}, request))).toBe(bytes + 64 + 500);
    expect(tokenBound(request, limitsOf({ limits: (r) => CLAUDE_CODE_CLI.limits(r.maxOutputTokens) }, request))).toBe(bytes + 4_096 + 500);
    // Codex cannot cap its reply: its bound is an estimate, and says so.
    expect(CODEX_CLI.limits(500)).toMatchObject({ outputEnforced: false });
  });
});

describe('every model call behind the budget and the ledger', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  const provider = (complete: ObserverProvider['complete']): ObserverProvider => ({ name: 'anthropic', model: 'claude-haiku-4-5', complete });
  const guarded = (p: ObserverProvider, dailyTokens = 1_000_000) =>
    withSpendGuard(p, createObserverBudget({ dailyTokens }, store.observerCalls), { now: () => NOW });
  const rows = () => store.db.prepare('SELECT purpose, session_id, events, outcome, tokens_in, tokens_out, cost_usd, cost_estimated FROM observer_calls').all();

  it('records who the call was for, its usage and its cost, known or estimated', async () => {
    const p = guarded(
      provider(async () => ({ text: 'x', usage: { inputTokens: 40, outputTokens: 5 }, costUsd: 0.00007, costEstimated: true, model: 'claude-haiku-4-5' })),
    );
    await p.complete({ ...request, spend: { purpose: 'observe', sessionId: 's1', events: 4 } });
    await p.complete(request);
    expect(rows()).toEqual([
      { purpose: 'observe', session_id: 's1', events: 4, outcome: 'ok', tokens_in: 40, tokens_out: 5, cost_usd: 0.00007, cost_estimated: 1 },
      { purpose: 'compact', session_id: null, events: 0, outcome: 'ok', tokens_in: 40, tokens_out: 5, cost_usd: 0.00007, cost_estimated: 1 },
    ]);
  });

  it('counts a refused call as nothing and a timed-out one at its reservation', async () => {
    await guarded(provider(async () => Promise.reject(new ProviderError('rate_limit', '429'))))
      .complete(request)
      .catch(() => undefined);
    await guarded(provider(async () => Promise.reject(new ProviderError('transport', 'timed out'))))
      .complete(request)
      .catch(() => undefined);
    expect(rows().map((r: any) => r.outcome)).toEqual(['failed', 'unknown']);
  });

  it('calls nothing when the bound does not fit what is left of the day', async () => {
    let called = 0;
    const p = guarded(
      provider(async () => {
        called += 1;
        return { text: 'x', usage: null, costUsd: null, model: 'm' };
      }),
      200,
    );
    await expect(p.complete(request)).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(called).toBe(0);
    expect(rows()).toEqual([]);
  });
});
