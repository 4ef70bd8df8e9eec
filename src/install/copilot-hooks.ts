/**
 * memtrace's hooks in GitHub Copilot CLI's hook file (AGENT-HOSTS-2.md §3.1): `{"version": 1,
 * "hooks": {"<event>": [{"type": "command", "bash": …, "timeoutSec": …}]}}` — one flat list of
 * commands per event, no matcher groups. memtrace writes its own file (`memtrace.json` in
 * `~/.copilot/hooks/`, or a repository's `.github/hooks/`), but a user may have added to it: only
 * the commands memtrace wrote are replaced or removed, in place; everything else stays. Pure.
 */
import { forwarderCommand, type Forwarder } from './hook-definitions.js';
import { hostHookEvents, ownsHostHookCommand } from './host-hooks.js';
import { isJsonObject, type HookChange, type JsonObject, type MergeResult } from './settings-merge.js';

const COPILOT_HOOK_EVENTS = hostHookEvents('copilot');

/**
 * Copilot waits for every hook (default limit 30 s); its own limit is a safety net above the
 * forwarder's. Session start may start the worker; the rest answer in milliseconds.
 */
const TIMEOUT_S: Readonly<Record<string, number>> = { sessionStart: 15 };
const DEFAULT_TIMEOUT_S = 10;

/** A command memtrace install wrote for Copilot (the forwarder, or the Node hook), whatever the paths. */
const ownsCopilotCommand = ownsHostHookCommand('copilot');

function copilotHookEntry(forwarder: Forwarder, event: string): JsonObject {
  return { type: 'command', bash: forwarderCommand(forwarder, 'copilot', event, 'settings'), timeoutSec: TIMEOUT_S[event] ?? DEFAULT_TIMEOUT_S };
}

const ours = (entry: unknown) => isJsonObject(entry) && entry.type === 'command' && ownsCopilotCommand(entry.bash);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function readHooks(file: JsonObject): { ok: true; hooks: JsonObject } | { ok: false; error: string } {
  if (file.hooks === undefined) return { ok: true, hooks: {} };
  if (!isJsonObject(file.hooks)) return { ok: false, error: '"hooks" is not an object; fix it by hand first' };
  for (const [event, list] of Object.entries(file.hooks)) {
    if (!Array.isArray(list)) return { ok: false, error: `"hooks.${event}" is not a list; fix it by hand first` };
  }
  return { ok: true, hooks: file.hooks };
}

function withHooks(file: JsonObject, hooks: JsonObject): JsonObject {
  // Copilot reads `version: 1` files; one written without a version is given it.
  return { version: 1, ...file, hooks };
}

/** Removes memtrace's commands from every event but `keep`'s (in place); an event list goes only when that emptied it. */
function removeOurs(hooks: JsonObject, keep: ReadonlySet<string>): HookChange[] {
  const changes: HookChange[] = [];
  for (const [event, list] of Object.entries(hooks)) {
    if (keep.has(event)) continue;
    const kept = (list as unknown[]).filter((entry) => !ours(entry));
    if (kept.length === (list as unknown[]).length) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
    changes.push({ event, action: 'removed' });
  }
  return changes;
}

export function installCopilotHooks(file: JsonObject, forwarder: Forwarder): MergeResult {
  const read = readHooks(file);
  if (!read.ok) return read;
  const hooks: JsonObject = { ...read.hooks };
  // Events memtrace no longer hooks (an older install): its commands there go.
  const changes = removeOurs(hooks, new Set(COPILOT_HOOK_EVENTS));
  for (const event of COPILOT_HOOK_EVENTS) {
    const entry = copilotHookEntry(forwarder, event);
    const list = (hooks[event] as unknown[] | undefined) ?? [];
    const at = list.findIndex(ours);
    const extra = list.filter((item, i) => i !== at && ours(item)).length;
    if (at >= 0 && extra === 0 && sameJson(list[at], entry)) continue;
    const next = list.filter((item, i) => i === at || !ours(item)).map((item) => (ours(item) ? entry : item));
    if (at < 0) next.push(entry);
    hooks[event] = next;
    changes.push({ event, action: at < 0 ? 'added' : 'updated' });
  }
  const settings = withHooks(file, hooks);
  if (changes.length === 0 && sameJson(settings, file)) return { ok: true, settings: file, changes: [], notices: [] };
  return { ok: true, settings, changes: changes.length > 0 ? changes : [{ event: 'version', action: 'added' }], notices: [] };
}

/** Removes exactly memtrace's commands; an event list goes only when that emptied it. */
export function uninstallCopilotHooks(file: JsonObject): MergeResult {
  const read = readHooks(file);
  if (!read.ok) return read;
  const hooks: JsonObject = { ...read.hooks };
  const changes = removeOurs(hooks, new Set());
  if (changes.length === 0) return { ok: true, settings: file, changes, notices: [] };
  return { ok: true, settings: { ...file, hooks }, changes, notices: [] };
}

/** A hook file that holds nothing but an empty hook table (what uninstall leaves of memtrace's own file). */
export function isEmptyHookFile(file: JsonObject): boolean {
  const keys = Object.keys(file).filter((key) => key !== 'version');
  return keys.length === 0 || (keys.length === 1 && isJsonObject(file.hooks) && Object.keys(file.hooks).length === 0);
}
