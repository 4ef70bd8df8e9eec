import type { Store } from '../../src/store/index.js';
import type { CompactionConfig, CompactionTimers } from '../../src/compaction/index.js';
import { DEFAULT_COMPACTION_CONFIG } from '../../src/compaction/index.js';

export const T0 = Date.UTC(2026, 2, 1);
export const MINUTE = 60_000;

/** Small sizes so a few dozen observations exceed the budget. */
export const SMALL_CONFIG: CompactionConfig = {
  ...DEFAULT_COMPACTION_CONFIG,
  budgetTokens: 1_000,
  keepRecentObservations: 5,
  leafInputTokens: 700,
  leafMinInputTokens: 200,
  fanIn: 3,
  initialDelayMs: 1_000,
  tickMs: 60_000,
};

/** Real observations in the store, oldest first, each about 130 tokens as summarizer input. */
export function seedObservations(
  store: Store,
  project: string | null,
  count: number,
  options: { startMs?: number; narrative?: (i: number) => string } = {},
): number[] {
  const start = options.startMs ?? T0;
  store.sessions.init({ sessionId: `session-${project ?? 'none'}`, project, nowMs: start });
  const ids: number[] = [];
  store.db.transaction(() => {
    for (let i = 0; i < count; i += 1) {
      ids.push(
        store.observations.insert(
          {
            type: 'discovery',
            title: `Finding ${i} about the retry path`,
            subtitle: 'why the worker retried',
            narrative: options.narrative?.(i) ?? `The retry path ${i} re-reads the queue row and backs off before calling the provider again. `.repeat(5),
            facts: [`fact ${i}`],
            concepts: ['retry'],
            files_read: [],
            files_modified: [`src/worker/file${i % 7}.ts`],
          },
          {
            sessionId: `session-${project ?? 'none'}`,
            project,
            sourceMessageIds: [i],
            provider: 'anthropic',
            model: 'claude-haiku-4-5',
            promptVersion: 'obs-v1',
            discoveryTokens: 500,
            createdAt: start + i * MINUTE,
          },
        ),
      );
    }
  })();
  return ids;
}

/** The user message of an Anthropic-wire request the fake provider received. */
export function promptOf(body: any): string {
  return String(body?.messages?.[0]?.content ?? '');
}

/** A summarizer's own text that is longer than what it was given (not a copy of it: that is an echo). */
export function longerThanPrompt(body: any): string {
  const sentence = 'The worker retried the upstream call, logged the status and backed off before the next try. ';
  return sentence.repeat(Math.ceil((promptOf(body).length * 1.5) / sentence.length) + 1);
}

/** Timers that never fire on their own: a test runs passes itself and reads the delays. */
export function recordingTimers(): CompactionTimers & { scheduled: number[] } {
  const scheduled: number[] = [];
  return {
    scheduled,
    setTimeout(_fn, ms) {
      scheduled.push(ms);
      return { cancel() {} };
    },
  };
}

export function fakeClock(startMs = T0) {
  let now = startMs;
  return {
    now: () => now,
    set: (ms: number) => {
      now = ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}
