import type Database from 'better-sqlite3';

/** A call about to be made, with the tokens reserved for it. */
export interface CallReservation {
  day: string;
  startedAt: number;
  sessionId: string | null;
  purpose: 'observe' | 'compact';
  provider: string;
  model: string | null;
  events: number;
  reservedTokens: number;
}

/** How a call ended. `failed`: the provider refused it (nothing generated); `unknown`: it may have spent (timeout, crash). */
export interface CallSettlement {
  endedAt: number;
  outcome: 'ok' | 'failed' | 'unknown';
  model: string | null;
  tokensIn: number | null;
  tokensOut: number | null;
  costUsd: number | null;
  costEstimated: boolean;
}

/** Spend over a group of calls. Unknown usage is counted apart, never as 0. */
export interface SpendTotals {
  calls: number;
  tokensIn: number;
  tokensOut: number;
  /** Calls whose usage is unknown (counted against the budget at their reservation). */
  callsUsageUnknown: number;
  /** Sum over calls with a known cost; null when none had one. */
  costUsd: number | null;
  /** True when any cost in the sum came from the price table rather than the provider. */
  costEstimated: boolean;
  /** Tool events the calls observed. */
  events: number;
}

/** Spend totals as `worker status --json` and /health print them (snake_case, cost to the micro-dollar). */
export interface SpendJson {
  calls: number;
  events: number;
  tokens_in: number;
  tokens_out: number;
  calls_usage_unknown: number;
  cost_usd?: number;
  cost_estimated?: boolean;
}

export const NO_SPEND: SpendTotals = { calls: 0, tokensIn: 0, tokensOut: 0, callsUsageUnknown: 0, costUsd: null, costEstimated: false, events: 0 };

export function spendJson(t: SpendTotals): SpendJson {
  return {
    calls: t.calls,
    events: t.events,
    tokens_in: t.tokensIn,
    tokens_out: t.tokensOut,
    calls_usage_unknown: t.callsUsageUnknown,
    ...(t.costUsd === null ? {} : { cost_usd: Math.round(t.costUsd * 1e6) / 1e6, cost_estimated: t.costEstimated }),
  };
}

export type ObserverCalls = ReturnType<typeof createObserverCalls>;

/**
 * What a call counts against the day's budget: its reported tokens once settled with a known
 * usage; its reservation while it runs or when its usage stayed unknown; nothing when the
 * provider refused it.
 */
const COUNTED = `CASE
  WHEN outcome = 'failed' THEN 0
  WHEN outcome = 'ok' AND tokens_in IS NOT NULL AND tokens_out IS NOT NULL THEN tokens_in + tokens_out
  ELSE reserved_tokens END`;

const TOTALS = `count(*) AS calls, coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
  sum(CASE WHEN outcome != 'failed' AND (tokens_in IS NULL OR tokens_out IS NULL) THEN 1 ELSE 0 END) AS unknown,
  sum(cost_usd) AS cost, max(cost_estimated) AS estimated, coalesce(sum(events), 0) AS events`;

/** The spend ledger (observer_calls): one row per model call, reserved before it and settled after. */
export function createObserverCalls(db: Database.Database) {
  const insert = db.prepare(`INSERT INTO observer_calls (day, started_at, session_id, purpose, provider, model, events, reserved_tokens, outcome)
    VALUES (@day, @startedAt, @sessionId, @purpose, @provider, @model, @events, @reservedTokens, 'reserved')`);
  const settle = db.prepare(`UPDATE observer_calls SET ended_at = @endedAt, outcome = @outcome, model = coalesce(@model, model), tokens_in = @tokensIn,
    tokens_out = @tokensOut, cost_usd = @costUsd, cost_estimated = @costEstimated, duration_ms = @endedAt - started_at WHERE id = @id AND outcome = 'reserved'`);
  const counted = db.prepare(`SELECT coalesce(sum(${COUNTED}), 0) AS n FROM observer_calls WHERE day = ?`);
  const overrun = db.prepare(
    "SELECT coalesce(max(tokens_in + tokens_out - reserved_tokens), 0) AS n FROM observer_calls WHERE provider = ? AND day >= ? AND outcome = 'ok' AND tokens_in IS NOT NULL AND tokens_out IS NOT NULL",
  );
  const byDay = db.prepare(`SELECT day, ${TOTALS}, sum(${COUNTED}) AS counted FROM observer_calls GROUP BY day ORDER BY day DESC LIMIT ?`);
  const bySession = db.prepare(
    `SELECT session_id, ${TOTALS}, max(started_at) AS last FROM observer_calls WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY last DESC LIMIT ?`,
  );
  const ofSession = db.prepare(`SELECT ${TOTALS} FROM observer_calls WHERE session_id = ?`);
  const forgetReserved = db.prepare("UPDATE observer_calls SET outcome = 'unknown' WHERE outcome = 'reserved'");

  return {
    /** Records the reservation (committed before the call is made); returns the call's id. */
    reserve: (r: CallReservation) => Number(insert.run(r).lastInsertRowid),
    settle: (id: number, s: CallSettlement) => settle.run({ id, ...s, costEstimated: s.costEstimated ? 1 : 0 }).changes === 1,
    /** Tokens that count against the day's budget, reservations of calls still running included. */
    countedOn: (day: string) => (counted.get(day) as { n: number }).n,
    /** The most a settled call of this provider used beyond its reservation since `sinceDay` (0 when none did). */
    largestOverrun: (provider: string, sinceDay: string) => Math.max(0, (overrun.get(provider, sinceDay) as { n: number }).n),
    byDay: (limit: number) =>
      (byDay.all(limit) as Array<Record<string, unknown>>).map((r) => ({ day: r.day as string, counted: Number(r.counted), ...totals(r) })),
    bySession: (limit: number) =>
      (bySession.all(limit) as Array<Record<string, unknown>>).map((r) => ({ sessionId: r.session_id as string, lastAt: Number(r.last), ...totals(r) })),
    ofSession: (sessionId: string) => totals(ofSession.get(sessionId) as Record<string, unknown>),
    /** On start: a call left `reserved` by a crash may have spent; it keeps counting at its reservation. */
    recoverReserved: () => forgetReserved.run().changes,
  };
}

function totals(r: Record<string, unknown>): SpendTotals {
  return {
    calls: Number(r.calls ?? 0),
    tokensIn: Number(r.tokens_in ?? 0),
    tokensOut: Number(r.tokens_out ?? 0),
    callsUsageUnknown: Number(r.unknown ?? 0),
    costUsd: r.cost === null || r.cost === undefined ? null : Number(r.cost),
    costEstimated: Number(r.estimated ?? 0) === 1,
    events: Number(r.events ?? 0),
  };
}
