import { findInFileTail } from '../file-tail.js';
import { exitCodeIn, lastAgentMessageIn, rolloutLines, rolloutLinesNaming } from './rollout-lines.js';

/** A shell call's exit code from the rollout; its item is written before PostToolUse fires. */
export function readExitCode(rolloutFile: string, toolUseId: string): number | null {
  return findInFileTail(rolloutFile, (tail) => exitCodeIn(rolloutLinesNaming(tail, toolUseId), toolUseId));
}

/** The agent's last message in the rollout, for a Stop whose last_assistant_message is null. */
export function readLastAgentMessage(rolloutFile: string): string | null {
  return findInFileTail(rolloutFile, (tail) => lastAgentMessageIn(rolloutLines(tail)));
}
