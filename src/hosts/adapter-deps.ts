import { readLastAssistantText } from './claude-code/transcript-tail.js';
import { readExitCode, readLastAgentMessage } from './codex/rollout-tail.js';
import { readLastCopilotText, readStopText } from './copilot/events-tail.js';
import { stopTimestampOf } from './copilot/call-ids.js';
import { readLastModelText, readLastModelTurn } from './gemini-cli/chat-tail.js';
import type { AdapterDeps } from './host-adapter.js';
import { readLastPiAssistantText } from './pi/session-entries.js';
import type { Platform } from './platforms.js';

/** What each host's adapter reads from that host's transcript files (node:fs, tails only). */
const DEPS: Readonly<Record<Platform, AdapterDeps>> = {
  'claude-code': { lastAssistantText: readLastAssistantText },
  'gemini-cli': { lastAssistantText: readLastModelText, lastModelTurn: readLastModelTurn },
  codex: { lastAssistantText: readLastAgentMessage, exitCodeOf: readExitCode },
  // The plugin joins the final text itself; the session's store is SQLite (mining reads it).
  opencode: {},
  copilot: {
    lastAssistantText: readLastCopilotText,
    turnFinalText: (eventsFile, promptId) => {
      const stoppedAt = stopTimestampOf(promptId);
      return stoppedAt === null ? { text: null } : readStopText(eventsFile, stoppedAt);
    },
  },
  pi: { lastAssistantText: readLastPiAssistantText },
  other: {},
};

export function adapterDepsFor(platform: Platform): AdapterDeps {
  return DEPS[platform];
}

/** A transcript's last assistant message, read the way its host writes it. */
export function lastAssistantTextFor(platform: Platform, transcriptPath: string | null): string | null {
  if (!transcriptPath) return null;
  return DEPS[platform === 'other' ? 'claude-code' : platform].lastAssistantText?.(transcriptPath) ?? null;
}
