import { findInFileTail, findLinesInFileTail } from '../file-tail.js';
import { exitCodeIn, isPlainId, lastAgentMessageIn, parseRolloutLines, rolloutLines } from './rollout-lines.js';

/**
 * A shell call's exit code from the rollout; its item is written before PostToolUse fires. Only
 * the lines naming the call are parsed: the rollout's first line alone (the session's
 * instructions) is tens of kB, and this runs at every shell call, while the host waits.
 */
export function readExitCode(rolloutFile: string, toolUseId: string): number | null {
  if (!isPlainId(toolUseId)) return findInFileTail(rolloutFile, (tail) => exitCodeIn(rolloutLines(tail), toolUseId));
  return findLinesInFileTail(rolloutFile, toolUseId, (lines) => exitCodeIn(parseRolloutLines(lines), toolUseId));
}

/** The agent's last message in the rollout, for a Stop whose last_assistant_message is null. */
export function readLastAgentMessage(rolloutFile: string): string | null {
  return findInFileTail(rolloutFile, (tail) => lastAgentMessageIn(rolloutLines(tail)));
}
