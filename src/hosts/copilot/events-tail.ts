import { findInFileTail } from '../file-tail.js';
import { readEventsLog } from './events-log.js';

/**
 * The final message of the turn an agentStop hook (by its timestamp) ended, read from the tail of
 * `events.jsonl`: `{text}` once Copilot has written that turn (text null when it ended without
 * any), null while it has not (the file is flushed in batches, often only at exit).
 */
export function readStopText(eventsFile: string, stopTimestamp: number): { text: string | null } | null {
  // The worker asks each time the file grows: lines are parsed only once the turn's Stop is there.
  const stop = `"timestamp":${stopTimestamp}`;
  return findInFileTail(eventsFile, (tail) => {
    if (!tail.includes(stop)) return null;
    const texts = readEventsLog(tail.split('\n')).stopTexts;
    return texts.has(stopTimestamp) ? { text: texts.get(stopTimestamp) ?? null } : null;
  });
}

/** The last assistant message in `events.jsonl`, for a session whose last Stop never came. */
export function readLastCopilotText(eventsFile: string): string | null {
  return findInFileTail(eventsFile, (tail) => readEventsLog(tail.split('\n')).lastAssistantText);
}
