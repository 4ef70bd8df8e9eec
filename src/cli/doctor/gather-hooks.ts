import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../../providers/cli/which.js';
import { CLAUDE_HOOK_EVENTS, isMemtraceHookCommand } from '../../install/hook-definitions.js';
import { hostConfigPaths, hostHomes } from '../../install/host-config-files.js';
import { hostHookEvents, ownsHostHookCommand } from '../../install/host-hooks.js';
import { parseJsonText } from '../../install/json-text.js';
import type { HostHooksSnapshot } from './snapshot.js';

const HOSTS: ReadonlyArray<{ host: HostHooksSnapshot['host']; cli: string }> = [
  { host: 'claude-code', cli: 'claude' },
  { host: 'gemini-cli', cli: 'gemini' },
  { host: 'codex', cli: 'codex' },
  { host: 'copilot', cli: 'copilot' },
];

/** The user's hook file of each host: where `memtrace install` writes without --project. */
function hookFile(host: HostHooksSnapshot['host'], env: Record<string, string | undefined>, home: string, cwd: string): string {
  if (host === 'claude-code') return path.join(env.CLAUDE_CONFIG_DIR ? path.resolve(cwd, env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude'), 'settings.json');
  return hostConfigPaths(host, { projectDir: null, home, ...hostHomes(env, cwd) }).hooksFile;
}

/** Each host's hook file read as it is: a file edited by hand, or not JSON, is reported, never fatal. */
export function gatherHooks(env: Record<string, string | undefined>, home: string, cwd: string): HostHooksSnapshot[] {
  return HOSTS.map(({ host, cli }) => {
    const file = hookFile(host, env, home, cwd);
    const expected = host === 'claude-code' ? CLAUDE_HOOK_EVENTS.length : hostHookEvents(host).length;
    const base = { host, file, cli, cliOnPath: findOnPath(cli, env.PATH) !== null, expected, events: [], scripts: [] };
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' ? { ...base, state: 'missing', error: null } : { ...base, state: 'unreadable', error: `cannot be read (${code ?? 'error'})` };
    }
    const parsed = parseJsonText(text);
    if (!parsed.ok) return { ...base, state: 'invalid', error: `is not valid JSON (line ${parsed.line}, column ${parsed.column}: ${parsed.reason})` };
    const owns = host === 'claude-code' ? isMemtraceHookCommand : ownsHostHookCommand(host);
    const hooks = (parsed.value as { hooks?: unknown } | null)?.hooks;
    const events: string[] = [];
    const scripts = new Map<string, boolean>();
    if (hooks && typeof hooks === 'object')
      for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
        const commands = commandsIn(groups).filter((c) => owns(c));
        if (commands.length === 0) continue;
        events.push(event);
        for (const command of commands) {
          const script = scriptOf(command);
          if (script !== null && !script.includes('${')) scripts.set(script, fs.existsSync(script));
        }
      }
    return { ...base, state: 'read', error: null, events, scripts: [...scripts].map(([p, exists]) => ({ path: p, exists })) };
  });
}

/** A hook entry's command: `command` (Claude Code, Gemini CLI, Codex), or the shell line Copilot CLI runs (`bash`, `powershell`). */
const COMMAND_KEYS = new Set(['command', 'bash', 'powershell']);

/** Every command string anywhere under a hook event's entry (each host nests them its own way). */
function commandsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(commandsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => (COMMAND_KEYS.has(key) && typeof v === 'string' ? [v] : commandsIn(v)));
}

/** The file a memtrace hook command runs: `sh <forwarder> …`, or 0.2.0's `<node> <memtrace.cjs> hook …`. */
function scriptOf(command: string): string | null {
  const words = [...command.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
  const at = words.findIndex((w) => /memtrace-hook$|memtrace\.[cm]js$/.test(w));
  return at === -1 ? null : words[at]!;
}
