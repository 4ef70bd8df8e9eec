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
 * kills background hooks when it exits, and with a background Stop a `claude -p` run was
 * measured to wait about 1.6 s longer before exiting (it holds the session for background
 * work). In the foreground each costs one forwarder (a shell and curl, docs/performance.md).
 * What a killed background hook loses, the worker recovers from the session's transcript.
 */
const ASYNC: ReadonlySet<ClaudeHookEvent> = new Set(['UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure']);
const TOOL_EVENTS: ReadonlySet<ClaudeHookEvent> = new Set(['PostToolUse', 'PostToolUseFailure']);

/** Claude Code's own per-hook limit, in seconds: a safety net above the hook's own budget (3 s). */
const TIMEOUT_S: Readonly<Record<ClaudeHookEvent, number>> = {
  SessionStart: 15,
  UserPromptSubmit: 15,
  PostToolUse: 30,
  PostToolUseFailure: 30,
  Stop: 10,
  SessionEnd: 5,
};

/** How a hook command runs memtrace's forwarder, each part a shell word. */
export interface Forwarder {
  /** bin/memtrace-hook: the script every firing can fall back to. */
  script: string;
  /** The folder it is in: the native forwarder names it to the worker and hands back to the script there. */
  bin: string;
  /** The node the script falls back to. */
  node: string;
  /**
   * The native forwarder the command runs first, with no script between (its `--direct` mode,
   * bin/memtrace-hook.c): the data dir's link to its current build, the data dir, and what sets
   * them when the hook runs. null: the script alone.
   */
  native: { setup: string; file: string; dataDir: string } | null;
}

/**
 * The plugin's forwarder: paths from Claude Code's plugin variables, node from PATH, and the data
 * dir as the script resolves it, read when the hook runs (Claude Code runs hooks with /bin/sh).
 */
export const PLUGIN_FORWARDER: Forwarder = {
  script: '"${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook"',
  bin: '"${CLAUDE_PLUGIN_ROOT}/bin"',
  node: 'node',
  native: { setup: 'd=${MEMTRACE_DATA_DIR:-$HOME/.memtrace}; ', file: '"$d/bin/hook"', dataDir: '"$d"' },
};

/**
 * One hook command (docs/install.md). With a native forwarder: `[ -O <hook> ] && [ -x <hook> ] &&
 * exec <hook> --direct <data dir> <host> <event> <via> <bin> <node>; exec sh <script> …`. The
 * host's shell tests with builtins and execs the native program itself, the script's shell
 * (0.7 ms of every firing, docs/performance.md) left out; where there is no build (no compiler, a
 * data dir removed), the script runs as before. Else `sh <script> <host> <event> <via> <node>`.
 */
export function forwarderCommand(forwarder: Forwarder, host: string, event: string, mode: InstallMode): string {
  const args = `${host} ${event} ${mode}`;
  const script = `sh ${forwarder.script} ${args} ${forwarder.node}`;
  const native = forwarder.native;
  if (native === null) return script;
  return `${native.setup}[ -O ${native.file} ] && [ -x ${native.file} ] && exec ${native.file} --direct ${native.dataDir} ${args} ${forwarder.bin} ${forwarder.node}; exec ${script}`;
}

export function memtraceHooks(forwarder: Forwarder, mode: InstallMode): HooksBlock {
  const block: HooksBlock = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const hook: CommandHook = {
      type: 'command',
      command: forwarderCommand(forwarder, 'claude-code', HOOK_COMMAND_NAMES[event], mode),
      timeout: TIMEOUT_S[event],
    };
    if (ASYNC.has(event)) hook.async = true;
    block[event] = [{ ...(TOOL_EVENTS.has(event) ? { matcher: '*' } : {}), hooks: [hook] }];
  }
  return block;
}

/**
 * A command memtrace wrote (either mode, any version): how install finds its own entries again,
 * whatever the path to node or the package, so that they are replaced, never duplicated. The
 * forwarder (`memtrace-hook <host> <event> <via>`) and 0.2.0's `memtrace.cjs hook <event> --via <via>`.
 */
export function isMemtraceHookCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  return (
    /memtrace-hook"? (?:claude-code|gemini-cli|codex|copilot) [A-Za-z-]+ (?:plugin|settings)(?: |$)/.test(command) ||
    /memtrace\.[cm]js"? hook [a-z-]+(?: \S+)*? --via (?:plugin|settings)(?: |$)/.test(command)
  );
}

/** A shell word, quoted only when it needs to be. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.:=@+-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}
