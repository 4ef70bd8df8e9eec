import fs from 'node:fs';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { adapterDepsFor, fitEvent, platformOf, type QueuedEvent } from '../hosts/index.js';
import { observerBytes } from '../observer/event-view.js';
import type { Store } from '../store/index.js';
import type { Timers } from '../timers.js';

/**
 * A Stop whose host writes the turn's final text only after the hook ran (Copilot CLI flushes
 * `events.jsonl` in batches, often only at exit): its summary request is queued at once, held
 * (`not_before`), and released as soon as the transcript holds that turn's text — or when the hold
 * runs out, without it. The batch it closes waits meanwhile, so the observer sees the turn with
 * its last message. The hook never waits: the reading happens here, in the worker. A worker that
 * restarts resumes waiting for the Stops still held (the queue row is the durable part).
 */
export interface StopTextConfig {
  /** The longest a summary request waits for its text. */
  holdMs: number;
  /** How often a held Stop's transcript is looked at (a stat; read only when it grew). */
  pollMs: number;
}

export const DEFAULT_STOP_TEXT_CONFIG: StopTextConfig = { holdMs: 30_000, pollMs: 250 };

export interface StopTextDeps {
  store: Store;
  clock: Clock;
  timers: Timers;
  log: Logger;
  redactText(text: string, nowMs: number): string;
  wake(sessionId: string): void;
}

type StopEvent = Extract<QueuedEvent, { kind: 'stop' }>;

interface Held {
  id: number;
  event: StopEvent;
  transcriptPath: string;
  promptId: string;
  untilMs: number;
  /** The transcript's size when last read: unchanged, it is not read again. */
  readAtSize: number;
}

export function createStopTextResolver(config: StopTextConfig, deps: StopTextDeps) {
  const held = new Map<number, Held>();
  let timer: { cancel(): void } | null = null;
  let stopped = false;

  const readerOf = (event: StopEvent) => adapterDepsFor(platformOf(event.platform)).turnFinalText;

  function schedule(): void {
    if (stopped || timer !== null || held.size === 0) return;
    timer = deps.timers.setTimeout(() => {
      timer = null;
      poll();
      schedule();
    }, config.pollMs);
  }

  function poll(): void {
    const nowMs = deps.clock.now();
    for (const entry of held.values()) {
      try {
        if (nowMs >= entry.untilMs) {
          held.delete(entry.id);
          deps.log.info('a Copilot turn’s final text was not in its transcript in time; its summary goes without it', { session_id: entry.event.session_id });
          continue;
        }
        const size = sizeOf(entry.transcriptPath);
        if (size === null || size === entry.readAtSize) continue;
        entry.readAtSize = size;
        const read = readerOf(entry.event);
        const found = read ? read(entry.transcriptPath, entry.promptId) : { text: null };
        if (found) release(entry, found.text, nowMs);
      } catch (error) {
        // A fault here only costs the turn its text: the hold runs out and the summary goes as it is.
        held.delete(entry.id);
        deps.log.warn('could not read a turn’s final text', { session_id: entry.event.session_id, error: String(error) });
      }
    }
  }

  function release(entry: Held, text: string | null, nowMs: number): void {
    held.delete(entry.id);
    const event: StopEvent = text === null ? entry.event : fitEvent({ ...entry.event, last_assistant_message: deps.redactText(text, nowMs) }).event;
    if (deps.store.queue.releaseHeld(entry.id, event, observerBytes(event), nowMs)) deps.wake(entry.event.session_id);
  }

  function watch(id: number, event: StopEvent, untilMs: number): void {
    if (stopped || !event.transcript_path || !event.prompt_id) return;
    held.set(id, { id, event, transcriptPath: event.transcript_path, promptId: event.prompt_id, untilMs, readAtSize: -1 });
    schedule();
  }

  return {
    /** How long this Stop's summary request is held for its final text; null when it is not (it has its text, or its host writes it in time). */
    holdMsFor(event: StopEvent): number | null {
      if (event.last_assistant_message || !event.transcript_path || !event.prompt_id || !readerOf(event)) return null;
      return config.holdMs;
    },
    /** A held Stop is queued (its row's id): read its text until the hold runs out. */
    held: (id: number, event: StopEvent, nowMs: number) => watch(id, event, nowMs + config.holdMs),
    /** Resumes the Stops a previous run held (their rows are still waiting). */
    resume(nowMs: number): number {
      let resumed = 0;
      for (const message of deps.store.queue.heldSummaries(nowMs)) {
        const event = message.payload;
        if (event.kind !== 'stop' || !readerOf(event)) continue;
        watch(message.id, event, nowMs + config.holdMs);
        resumed += 1;
      }
      return resumed;
    },
    pending: () => held.size,
    stop(): void {
      stopped = true;
      timer?.cancel();
      timer = null;
      held.clear();
    },
  };
}

export type StopTextResolver = ReturnType<typeof createStopTextResolver>;

function sizeOf(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}
