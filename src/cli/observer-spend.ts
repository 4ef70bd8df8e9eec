import fs from 'node:fs';
import { openStore, spendJson, type SpendJson } from '../store/index.js';
import { usdText } from '../vocabulary/usd-text.js';

/** The observer's spend as `worker status` shows it: per UTC day and per session, from the ledger. */
export interface SpendReport {
  days: Array<{ day: string } & SpendJson>;
  sessions: Array<{ session_id: string; last_call_at: string } & SpendJson>;
}

const DAYS = 7;
const SESSIONS = 10;

/** Null when the data dir has no store yet (nothing was ever observed). */
export function readSpend(dbFile: string): SpendReport | null {
  if (!fs.existsSync(dbFile)) return null;
  const store = openStore(dbFile, { recoverClaimed: false });
  try {
    return {
      days: store.observerCalls.byDay(DAYS).map((d) => ({ day: d.day, ...spendJson(d) })),
      sessions: store.observerCalls
        .bySession(SESSIONS)
        .map((s) => ({ session_id: s.sessionId, last_call_at: new Date(s.lastAt).toISOString(), ...spendJson(s) })),
    };
  } finally {
    store.close();
  }
}

const n = (x: number) => x.toLocaleString('en-US');

/** One line of spend: calls, events, tokens in/out, cost (known or estimated), unknown usage. */
function describeSpend(s: SpendJson): string {
  const cost = s.cost_usd === undefined ? 'cost unknown' : `${usdText(s.cost_usd)}${s.cost_estimated ? ' (estimated from list prices)' : ''}`;
  const unknown = s.calls_usage_unknown > 0 ? `, ${s.calls_usage_unknown} call(s) with unknown usage` : '';
  return `${n(s.calls)} call(s) for ${n(s.events)} tool event(s), ${n(s.tokens_in)} tokens in / ${n(s.tokens_out)} out, ${cost}${unknown}`;
}

/** The observer lines of `worker status`, from /health's `observer` and the ledger. */
export function describeObserver(observer: Record<string, unknown> | undefined, spend: SpendReport | null): string[] {
  const lines: string[] = [];
  if (observer) {
    lines.push(`  observer     ${String(observer.line ?? '').replace(/^observer: /, '')}`);
    const budget = observer.budget as { day: string; tokens_per_day: number; counted_today: number } | undefined;
    const paused = observer.paused as { resume_at: string } | null;
    if (paused && budget)
      lines.push(
        `  observer paused: daily budget reached — ${n(budget.counted_today)} of ${n(budget.tokens_per_day)} tokens today (UTC ${budget.day}); events wait in the queue and are observed from ${paused.resume_at}, or raise MEMTRACE_OBSERVER_BUDGET_TOKENS and restart the worker`,
      );
    for (const wait of (observer.waits as Array<Record<string, unknown>> | undefined) ?? [])
      lines.push(`  observer waiting: ${String(wait.provider)} ${waitReason(wait)}; next attempt ${String(wait.next_attempt_at)} (events are kept)`);
    const today = observer.today as SpendJson | undefined;
    if (today && budget) lines.push(`  spend today  ${describeSpend(today)}; ${n(budget.counted_today)} of ${n(budget.tokens_per_day)} budget tokens counted`);
  }
  const session = spend?.sessions[0];
  if (session) lines.push(`  last session ${session.session_id}: ${describeSpend(session)}`);
  return lines;
}

const WAIT_REASONS: Readonly<Record<string, string>> = {
  cli_missing: 'CLI not found on PATH (install it, or set MEMTRACE_PROVIDER)',
  logged_out: 'is not logged in (log in to it, or set a key)',
  usage_limit: 'reached its usage limit',
  cli_failed: 'CLI failed',
  timeout: 'timed out',
};

function waitReason(wait: Record<string, unknown>): string {
  const detail = typeof wait.detail === 'string' ? WAIT_REASONS[wait.detail] : undefined;
  if (detail) return detail;
  const reason = String(wait.reason);
  return reason === 'auth'
    ? 'refused our credentials'
    : reason === 'quota'
      ? 'is out of quota'
      : reason === 'rate_limit'
        ? 'is rate limiting us'
        : 'is overloaded';
}
