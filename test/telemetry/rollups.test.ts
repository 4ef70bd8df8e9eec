import { describe, expect, it } from 'vitest';
import { finalizeTurnRollup, foldTurn, mergeTurnAccumulators, newTurnAccumulator, turnRollupDue, eventUuid } from '../../src/telemetry/index.js';
import { finalizeInjectionRollup, foldInjection, newInjectionAccumulator } from '../../src/telemetry/index.js';
import type { TurnRecord } from '../../src/observer/turn-record.js';

function turn(over: Partial<TurnRecord> = {}): TurnRecord {
  return {
    sessionId: 's',
    messageIds: [1],
    events: 1,
    outcome: 'ok',
    parse: 'parsed',
    outputClass: 'xml',
    abortReason: null,
    observationsByType: { bugfix: 1 },
    observationsCreated: 1,
    summaryCreated: false,
    claimsRejected: 0,
    claimsUnverifiable: 0,
    fileClaimsRemoved: 0,
    tokens: { input: 100, output: 10 },
    costUsd: 0.001,
    durationMs: 200,
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    ...over,
  };
}

describe('observer turn rollup', () => {
  it('counts a mixed session exactly', () => {
    const acc = newTurnAccumulator(1_000, 'anthropic');
    foldTurn(acc, turn());
    foldTurn(acc, turn({ observationsByType: { decision: 2 }, observationsCreated: 2, tokens: null, costUsd: null }));
    foldTurn(acc, turn({ parse: 'dropped', outputClass: 'prose', observationsByType: {}, observationsCreated: 0 }));
    foldTurn(acc, turn({ parse: 'dropped', outputClass: 'idle', observationsByType: {}, observationsCreated: 0, model: 'acme-secret-model' }));
    foldTurn(
      acc,
      turn({
        outcome: 'error',
        parse: null,
        outputClass: null,
        abortReason: 'rate_limit',
        observationsByType: {},
        observationsCreated: 0,
        tokens: null,
        costUsd: null,
      }),
    );
    foldTurn(acc, turn({ events: 0, summaryCreated: true, observationsByType: {}, observationsCreated: 0, claimsRejected: 1 }));
    const p = finalizeTurnRollup(acc, { reason: 'session_end', windowSeq: 0 });
    expect(p).toMatchObject({
      count: 6,
      turns_parsed: 3,
      turns_dropped: 2,
      invalid_class_prose: 1,
      invalid_class_idle: 1,
      invalid_class_malformed_xml: 0,
      outcomes_ok: 5,
      outcomes_error: 1,
      abort_reason_rate_limit: 1,
      observations_created: 3,
      obs_type_bugfix: 1,
      obs_type_decision: 2,
      summaries_created: 1,
      claims_rejected: 1,
      total_tokens_input: 400,
      total_tokens_output: 40,
      turns_usage_unknown: 1,
      total_cost_usd: 0.004,
      avg_duration_ms: 200,
      top_model: 'claude-haiku-4-5',
      provider: 'anthropic',
      rollup_reason: 'session_end',
      window_seq: 0,
      window_start_ts: 1_000,
    });
  });

  it('omits token and cost totals when no turn reported them, instead of reporting 0', () => {
    const acc = newTurnAccumulator(0, 'openai');
    foldTurn(acc, turn({ tokens: null, costUsd: null }));
    const p = finalizeTurnRollup(acc, { reason: 'session_end', windowSeq: 0 });
    expect(p).not.toHaveProperty('total_tokens_input');
    expect(p).not.toHaveProperty('total_cost_usd');
    expect(p.turns_usage_unknown).toBe(1);
  });

  it('merges counters associatively and commutatively', () => {
    const make = (n: number) => {
      const acc = newTurnAccumulator(n, 'anthropic');
      for (let i = 0; i < n; i += 1) foldTurn(acc, turn({ durationMs: n }));
      return acc;
    };
    const [a, b, c] = [make(1), make(2), make(3)];
    const left = finalizeTurnRollup(mergeTurnAccumulators(mergeTurnAccumulators(a, b), c), { reason: 'session_end', windowSeq: 0 });
    const right = finalizeTurnRollup(mergeTurnAccumulators(c, mergeTurnAccumulators(b, a)), { reason: 'session_end', windowSeq: 0 });
    expect(left).toEqual(right);
    expect(left.count).toBe(6);
  });

  it('stays the same small size after 10,000 turns', () => {
    const acc = newTurnAccumulator(0, 'anthropic');
    for (let i = 0; i < 10_000; i += 1) foldTurn(acc, turn({ model: `claude-model-${i % 50}` }));
    expect(JSON.stringify(acc).length).toBeLessThan(4096);
    expect(Object.keys(acc.models).length).toBeLessThanOrEqual(9);
  });

  it('is due at 1000 turns or after an hour', () => {
    const acc = newTurnAccumulator(0, 'anthropic');
    foldTurn(acc, turn());
    expect(turnRollupDue(acc, 3_599_999)).toBe(false);
    expect(turnRollupDue(acc, 3_600_000)).toBe(true);
    for (let i = 1; i < 1000; i += 1) foldTurn(acc, turn());
    expect(turnRollupDue(acc, 1)).toBe(true);
  });
});

describe('context injection rollup', () => {
  it('sums a window and leaves unknown savings out', () => {
    const acc = newInjectionAccumulator(300_000);
    foldInjection(acc, { ok: true, tokensInjected: 100, observationsInjected: 3, tokensSavedVsNaive: null });
    foldInjection(acc, { ok: false, tokensInjected: 0, observationsInjected: 0, tokensSavedVsNaive: null });
    expect(finalizeInjectionRollup(acc)).toEqual({
      count: 2,
      outcomes_ok: 1,
      outcomes_error: 1,
      total_tokens: 100,
      avg_tokens: 50,
      total_observations_injected: 3,
      window_start_ts: 300_000,
    });
  });
});

describe('eventUuid', () => {
  it('is a deterministic RFC 4122 version 5 uuid', () => {
    const a = eventUuid({ installId: 'i', event: 'observer_turn_rollup', key: 's', seq: 0 });
    expect(a).toBe(eventUuid({ installId: 'i', event: 'observer_turn_rollup', key: 's', seq: 0 }));
    expect(a).not.toBe(eventUuid({ installId: 'i', event: 'observer_turn_rollup', key: 's', seq: 1 }));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
