import type { Command } from '../command.js';
import { HOOK_USAGE, runHook } from '../../hook/hook-entry.js';
import { MEMTRACE_BIN } from '../memtrace-bin.js';

/**
 * `memtrace hook` inside the CLI (tests, the demo). The bin routes `hook` straight to
 * src/hook/hook-entry.ts so a tool call never loads the CLI framework.
 */
export const hookCommand: Command = {
  name: 'hook',
  summary: "forward an agent's hook event (Claude Code, Gemini CLI, Codex) to the worker",
  usage: HOOK_USAGE,
  run: (args, io) => runHook(args, { ...io, memtraceBin: MEMTRACE_BIN }),
};
