import type { TurnRecord } from '../observer/turn-record.js';
import { eventUuid } from './event-id.js';
import {
  finalizeInjectionRollup,
  foldInjection,
  INJECTION_WINDOW_MS,
  newInjectionAccumulator,
  windowStartFor,
  type Injection,
  type InjectionAccumulator,
} from './rollups/context-injection.js';
import {
  addCounters,
  COUNTER_WINDOW_MS,
  counterWindowKey,
  finalizeCounterWindow,
  isCounterWindowKey,
  newCounterWindow,
  type CounterWindow,
} from './rollups/counter-window.js';
import { finalizeTurnRollup, foldTurn, newTurnAccumulator, turnRollupDue, type ObserverTurnAccumulator } from './rollups/observer-turn.js';
import { scrubProperties } from './scrub.js';
import type { TelemetryStore } from './telemetry-store.js';

export type RollupReason = 'session_end' | 'worker_shutdown' | 'safety_flush' | 'crash_recovery';

const TURN_EVENT = 'observer_turn_rollup';
const INJECTION_EVENT = 'context_injected_rollup';
const INJECTION_KEY = `${INJECTION_EVENT}:current`;

export interface EmittedEvent {
  event: string;
  uuid: string;
  properties: Record<string, string | number | boolean>;
}

/**
 * Durable accumulators: each fold reads, updates and writes one small row, so memory per open
 * session is constant and a crash loses nothing. Finalizing scrubs the rollup into the outbox.
 */
export function createRollupBook(deps: {
  store: TelemetryStore;
  installId: string;
  provider: string;
  base: Record<string, string | boolean>;
  onEmit?: (event: EmittedEvent) => void;
}) {
  const { store } = deps;

  function emit(event: string, key: string, seq: number, raw: Record<string, unknown>, nowMs: number): void {
    const scrubbed = scrubProperties(event, { ...deps.base, ...raw });
    if (!scrubbed) return;
    const uuid = eventUuid({ installId: deps.installId, event, key, seq });
    store.enqueue({ uuid, event, properties: scrubbed.properties, timestamp: nowMs }, nowMs);
    deps.onEmit?.({ event, uuid, properties: scrubbed.properties });
  }

  function closeTurn(key: string, reason: RollupReason, nowMs: number): boolean {
    const row = store.accumulator<ObserverTurnAccumulator>(key);
    if (!row?.state || row.state.counters.count === 0) return false;
    emit(TURN_EVENT, key, row.windowSeq, finalizeTurnRollup(row.state, { reason, windowSeq: row.windowSeq }), nowMs);
    store.saveAccumulator({ ...row, state: null, windowSeq: row.windowSeq + 1 }, nowMs);
    return true;
  }

  function closeInjection(nowMs: number): boolean {
    const row = store.accumulator<InjectionAccumulator>(INJECTION_KEY);
    if (!row?.state || row.state.count === 0) return false;
    emit(INJECTION_EVENT, String(row.state.windowStartMs), 0, finalizeInjectionRollup(row.state), nowMs);
    store.saveAccumulator({ ...row, state: null }, nowMs);
    return true;
  }

  function closeCounters(key: string, nowMs: number): boolean {
    const row = store.accumulator<CounterWindow>(key);
    if (!row?.state) return false;
    emit(row.event, `${key}@${row.state.windowStartMs}`, 0, finalizeCounterWindow(row.state), nowMs);
    store.saveAccumulator({ ...row, state: null }, nowMs);
    return true;
  }

  return {
    emit,
    /** Adds counters to the current window of `event` for these dimensions; a new window closes the old one. */
    foldCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void {
      const key = counterWindowKey(event, dims);
      const windowStart = windowStartFor(nowMs, COUNTER_WINDOW_MS);
      let row = store.accumulator<CounterWindow>(key);
      if (row?.state && row.state.windowStartMs !== windowStart) {
        closeCounters(key, nowMs);
        row = store.accumulator<CounterWindow>(key);
      }
      const acc = row?.state ?? newCounterWindow(windowStart, dims);
      addCounters(acc, increments);
      store.saveAccumulator({ key, event, state: acc, windowSeq: 0, openedAt: row?.state ? row.openedAt : nowMs }, nowMs);
    },
    foldTurn(turn: TurnRecord, nowMs: number): void {
      const key = `${TURN_EVENT}:${turn.sessionId}`;
      const row = store.accumulator<ObserverTurnAccumulator>(key) ?? { key, event: TURN_EVENT, state: null, windowSeq: 0, openedAt: nowMs };
      const acc = row.state ?? newTurnAccumulator(nowMs, deps.provider);
      foldTurn(acc, turn);
      store.saveAccumulator({ ...row, state: acc, openedAt: row.state ? row.openedAt : nowMs }, nowMs);
      if (turnRollupDue(acc, nowMs)) closeTurn(key, 'safety_flush', nowMs);
    },
    foldInjection(injection: Injection, nowMs: number): void {
      const windowStart = windowStartFor(nowMs, INJECTION_WINDOW_MS);
      const row = store.accumulator<InjectionAccumulator>(INJECTION_KEY);
      if (row?.state && row.state.windowStartMs !== windowStart) closeInjection(nowMs);
      const current = store.accumulator<InjectionAccumulator>(INJECTION_KEY);
      const acc = current?.state ?? newInjectionAccumulator(windowStart);
      foldInjection(acc, injection);
      store.saveAccumulator(
        { key: INJECTION_KEY, event: INJECTION_EVENT, state: acc, windowSeq: 0, openedAt: current?.state ? current.openedAt : nowMs },
        nowMs,
      );
    },
    closeSession: (sessionId: string, nowMs: number) => closeTurn(`${TURN_EVENT}:${sessionId}`, 'session_end', nowMs),
    /** Closes a due injection window and turn rollups past the age cap. */
    tick(nowMs: number): void {
      const row = store.accumulator<InjectionAccumulator>(INJECTION_KEY);
      if (row?.state && windowStartFor(nowMs, INJECTION_WINDOW_MS) !== row.state.windowStartMs) closeInjection(nowMs);
      const currentWindow = windowStartFor(nowMs, COUNTER_WINDOW_MS);
      for (const open of store.openAccumulators<ObserverTurnAccumulator | CounterWindow>()) {
        if (isCounterWindowKey(open.key)) {
          if (open.state && open.state.windowStartMs !== currentWindow) closeCounters(open.key, nowMs);
        } else if (open.event === TURN_EVENT && open.state && turnRollupDue(open.state as ObserverTurnAccumulator, nowMs)) {
          closeTurn(open.key, 'safety_flush', nowMs);
        }
      }
    },
    /** Every open accumulator out: at shutdown, or on start for what a crash left open. */
    closeAll(reason: RollupReason, nowMs: number): number {
      let closed = 0;
      for (const open of store.openAccumulators()) {
        if (isCounterWindowKey(open.key)) closed += closeCounters(open.key, nowMs) ? 1 : 0;
        else if (open.event === TURN_EVENT) closed += closeTurn(open.key, reason, nowMs) ? 1 : 0;
        else if (open.event === INJECTION_EVENT) closed += closeInjection(nowMs) ? 1 : 0;
      }
      return closed;
    },
  };
}
