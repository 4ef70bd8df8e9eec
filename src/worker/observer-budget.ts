import type { CallReservation, CallSettlement } from '../store/index.js';

/**
 * MEMTRACE_OBSERVER_BUDGET_TOKENS: input plus output tokens per UTC day, never exceeded
 * (docs/observer.md#budget). Before a call, its upper bound is reserved in the ledger, and the
 * call is made only if everything already counted today plus that bound fits; after it, the
 * reservation is settled to the usage the provider reported. A call whose usage might cross the
 * line is therefore never started: it waits for the next UTC day (or a larger budget). A call whose
 * usage stayed unknown keeps counting at its reservation.
 */
export interface BudgetLedger {
  reserve(r: CallReservation): number;
  settle(id: number, s: CallSettlement): boolean;
  countedOn(day: string): number;
  largestOverrun(provider: string, sinceDay: string): number;
}

export interface CallToReserve {
  sessionId: string | null;
  purpose: 'observe' | 'compact';
  provider: string;
  model: string | null;
  events: number;
  /** The call's upper bound in tokens (prompt bytes + the provider's overhead + the output cap). */
  boundTokens: number;
}

export interface BudgetStatus {
  day: string;
  budgetTokens: number;
  countedTokens: number;
  remainingTokens: number;
  /** Set while calls wait for the next day: a reservation was refused today. */
  paused: { reason: 'daily_budget'; resumeAt: string } | null;
}

/** A call that does not fit in what is left of the day's budget; it waits, nothing is lost. */
export class BudgetExhaustedError extends Error {
  constructor(
    readonly resumeAtMs: number,
    readonly neededTokens: number,
    readonly remainingTokens: number,
  ) {
    super(`observer paused: daily budget reached (a call needs up to ${neededTokens} tokens, ${remainingTokens} remain today)`);
    this.name = 'BudgetExhaustedError';
  }
}

/** How far back an earlier overrun still widens reservations. */
const OVERRUN_MEMORY_DAYS = 7;
const DAY_MS = 86_400_000;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

export function createObserverBudget(config: { dailyTokens: number }, ledger: BudgetLedger) {
  let refusedOn: string | null = null;
  return {
    /** Reserves the call's bound, or throws BudgetExhaustedError; returns the ledger id to settle. */
    reserve(call: CallToReserve, nowMs: number): number {
      const day = utcDay(nowMs);
      // A provider that once used more than its bound (a CLI's hidden overhead) gets that much more room.
      const margin = ledger.largestOverrun(call.provider, utcDay(nowMs - OVERRUN_MEMORY_DAYS * DAY_MS));
      const reservedTokens = call.boundTokens + margin;
      const remaining = Math.max(0, config.dailyTokens - ledger.countedOn(day));
      if (reservedTokens > remaining) {
        refusedOn = day;
        throw new BudgetExhaustedError(nextUtcMidnight(nowMs), reservedTokens, remaining);
      }
      if (refusedOn !== day) refusedOn = null;
      return ledger.reserve({
        day,
        startedAt: nowMs,
        sessionId: call.sessionId,
        purpose: call.purpose,
        provider: call.provider,
        model: call.model,
        events: call.events,
        reservedTokens,
      });
    },
    settle: (id: number, settlement: CallSettlement) => ledger.settle(id, settlement),
    status(nowMs: number): BudgetStatus {
      const day = utcDay(nowMs);
      const counted = ledger.countedOn(day);
      return {
        day,
        budgetTokens: config.dailyTokens,
        countedTokens: counted,
        remainingTokens: Math.max(0, config.dailyTokens - counted),
        paused: refusedOn === day ? { reason: 'daily_budget', resumeAt: new Date(nextUtcMidnight(nowMs)).toISOString() } : null,
      };
    },
  };
}

export type ObserverBudget = ReturnType<typeof createObserverBudget>;
