import { canonicalJson, hash64 } from '../call-hash.js';

/**
 * The names memtrace gives Copilot CLI's calls and turns, which its hooks do not name (AGENT-HOSTS-2.md
 * §3.4): no hook payload carries a tool-call id, so a tool event is stored under a provisional id
 * made of what its payload holds — the session, the hook's own timestamp, the tool and its
 * arguments. `events.jsonl` keeps each hook's input (`hook.start`), so mining derives the same
 * id from the transcript and also learns the call's real `toolCallId`, which then names it too.
 * A replayed hook (from the spool) hashes alike and is a duplicate. Pure.
 */
export function copilotToolUseId(call: { sessionId: string; timestamp: unknown; toolName: string; toolArgs: unknown }): string {
  const time = typeof call.timestamp === 'number' || typeof call.timestamp === 'string' ? String(call.timestamp) : '';
  return `copilot-${hash64([call.sessionId, time, call.toolName, canonicalJson(call.toolArgs ?? null)].join('\u0000'))}`;
}

/**
 * A turn's name: its agentStop hook's timestamp, which `events.jsonl` records again in that hook's
 * `hook.start` (right after the turn's final message). It is the Stop's prompt_id, so a replayed
 * Stop is one summary, and it tells the worker which final message is this turn's.
 */
const STOP_PREFIX = 'copilot-stop-';

export function copilotStopId(timestamp: unknown): string | null {
  return typeof timestamp === 'number' && Number.isFinite(timestamp) ? `${STOP_PREFIX}${Math.round(timestamp)}` : null;
}

/** The agentStop timestamp a Stop's prompt_id names, or null when it is not a Copilot turn's. */
export function stopTimestampOf(promptId: string | null | undefined): number | null {
  if (typeof promptId !== 'string' || !promptId.startsWith(STOP_PREFIX)) return null;
  const value = Number(promptId.slice(STOP_PREFIX.length));
  return Number.isFinite(value) ? value : null;
}
