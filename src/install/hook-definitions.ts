/**
 * memtrace's Claude Code hooks, defined once: the plugin's hooks/hooks.json is generated from
 * this (a test fails on drift) and `memtrace install` writes the same entries into settings.json.
 * Pure: how to run the hook command comes in as a value.
 */
export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/** The `memtrace hook <name>` argument for each Claude Code event. */
export const HOOK_COMMAND_NAMES: Readonly<Record<ClaudeHookEvent, string>> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'user-prompt-submit',
  PostToolUse: 'post-tool-use',
  PostToolUseFailure: 'post-tool-use-failure',
  Stop: 'stop',
  SessionEnd: 'session-end',
};

export type InstallMode = 'plugin' | 'settings';

export interface CommandHook {
  type: 'command';
  /** Gemini CLI names each hook (it fingerprints project hooks by name and command). */
  name?: string;
  command: string;
  async?: boolean;
  timeout?: number;
}

export interface HookMatcherGroup {
  matcher?: string;
  hooks: CommandHook[];
}

export type HooksBlock = Partial<Record<ClaudeHookEvent, HookMatcherGroup[]>>;

/**
 * Which hooks may run in the background. Per-tool and per-prompt hooks never block the agent.
 * SessionStart must answer with context. Stop and SessionEnd stay in the foreground: Claude Code
 * kills background hooks when it exits, and with a background Stop a `claude -p` run was measured
 * to wait about 1.6 s longer before exiting (it holds the session for background work); each
 * foreground hook costs one node start instead. SessionEnd's handler also queues the last
 * turn's summary from the transcript if no Stop delivered it.
 */
const ASYNC: ReadonlySet<ClaudeHookEvent> = new Set(['UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure']);
const TOOL_EVENTS: ReadonlySet<ClaudeHookEvent> = new Set(['PostToolUse', 'PostToolUseFailure']);

/** Claude Code's own per-hook limit, in seconds: a safety net above the hook's own 2 s budget. */
const TIMEOUT_S: Readonly<Record<ClaudeHookEvent, number>> = { SessionStart: 15, UserPromptSubmit: 15, PostToolUse: 30, PostToolUseFailure: 30, Stop: 10, SessionEnd: 5 };

/**
 * `invoke` is the shell prefix that runs memtrace's hook entry, e.g.
 * `node "${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs"` for the plugin or absolute paths for settings.
 */
export function memtraceHooks(invoke: string, mode: InstallMode): HooksBlock {
  const block: HooksBlock = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const hook: CommandHook = { type: 'command', command: `${invoke} hook ${HOOK_COMMAND_NAMES[event]} --via ${mode}`, timeout: TIMEOUT_S[event] };
    if (ASYNC.has(event)) hook.async = true;
    block[event] = [{ ...(TOOL_EVENTS.has(event) ? { matcher: '*' } : {}), hooks: [hook] }];
  }
  return block;
}

export const PLUGIN_INVOKE = 'node "${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs"';

/**
 * A command memtrace wrote (either mode): how install finds its own entries again, whatever the
 * path to node or the package. Other flags before or after `--via` are tolerated so that a newer
 * or older memtrace's entries are still recognised (and replaced, never duplicated).
 */
export function isMemtraceHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /memtrace\.[cm]js"? hook [a-z-]+(?: \S+)*? --via (?:plugin|settings)(?: |$)/.test(command);
}

/** A shell word, quoted only when it needs to be. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\/.:=@+-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}
