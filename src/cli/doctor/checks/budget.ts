import { ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** The part of /health's `observer` this check reads. */
interface WorkerObserver {
  budget?: { counted_today?: unknown };
  paused?: { resume_at?: unknown } | null;
}

const n = (value: number) => value.toLocaleString('en-US');

/** MEMTRACE_OBSERVER_BUDGET_TOKENS against today's spend: the worker's count, else the ledger's. */
export function checkBudget(s: DoctorSnapshot): Finding[] {
  const budgetTokens = s.observerBudgetTokens;
  const observer = s.health?.reachable === true ? (s.health.body.observer as WorkerObserver | undefined) : undefined;
  const spend = s.store.state === 'ok' ? s.store.spendToday : null;
  const counted = typeof observer?.budget?.counted_today === 'number' ? observer.budget.counted_today : (spend?.tokens ?? 0);
  const cost = spend?.costUsd;
  const calls = spend?.calls ?? 0;
  const spent = `${n(counted)} of ${n(budgetTokens)} tokens today (UTC), ${calls} call(s)${cost != null ? `, $${cost.toFixed(4)}` : ''}`;
  if (budgetTokens === 0)
    return [
      warn('budget', 'MEMTRACE_OBSERVER_BUDGET_TOKENS=0: nothing is observed', 'unset MEMTRACE_OBSERVER_BUDGET_TOKENS (1000000 a day) and restart the worker'),
    ];
  if (observer?.paused)
    return [
      warn(
        'budget',
        `observer paused: daily budget reached — ${spent}; events wait until ${String(observer.paused.resume_at ?? 'the UTC day turns')}`,
        'raise MEMTRACE_OBSERVER_BUDGET_TOKENS and restart the worker (what waited is observed at once), or wait for the UTC day to turn',
      ),
    ];
  return [ok('budget', spent)];
}
