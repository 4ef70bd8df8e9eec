/**
 * memtrace's hooks in and out of a parsed Claude Code settings object. Pure.
 *
 * memtrace owns exactly the command hooks `isMemtraceHookCommand` recognises; everything else in
 * the file (other keys, other hooks, the user's hooks in the same matcher groups) is kept as is,
 * in its order. Install replaces memtrace's existing entries in place when they line up with the
 * wanted ones (a second install changes nothing; a moved package or new flags update the entry
 * where it is) and otherwise removes them and appends its own matcher groups. Uninstall removes
 * memtrace's entries and drops a matcher group, an event list or the `hooks` object only when
 * that removal emptied it — so install then uninstall gives back the original object, except
 * that an empty `hooks: {}` or `"Stop": []` the user had before install goes too.
 */
import { isMemtraceHookCommand, type HookMatcherGroup } from './hook-definitions.js';

export type JsonObject = Record<string, unknown>;

export interface HookChange {
  event: string;
  action: 'added' | 'updated' | 'removed';
}

export type MergeResult = { ok: true; settings: JsonObject; changes: HookChange[]; notices: string[] } | { ok: false; error: string };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which hook commands are memtrace's: each host's install recognises its own (Claude Code's by default). */
export type OwnsCommand = (command: unknown) => boolean;

/** The hooks memtrace wants, by the host's event name, in the order they are written. */
export type WantedHooks = Readonly<Partial<Record<string, HookMatcherGroup[]>>>;

const ours =
  (owns: OwnsCommand) =>
  (hook: unknown): boolean =>
    isJsonObject(hook) && hook.type === 'command' && owns(hook.command);

/** A matcher group we can edit: an object with a `hooks` list. Anything else is left alone. */
function isGroup(group: unknown): group is JsonObject & { hooks: unknown[] } {
  return isJsonObject(group) && Array.isArray(group.hooks);
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Sets an own key even when it is `__proto__` (JSON.parse makes such keys own properties). */
function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Removes memtrace's hooks from one event list; drops only the groups this removal emptied. */
function stripEvent(groups: unknown[], isOurs: (hook: unknown) => boolean): { groups: unknown[]; removed: number } {
  let removed = 0;
  const kept: unknown[] = [];
  for (const group of groups) {
    if (!isGroup(group)) {
      kept.push(group);
      continue;
    }
    const hooks = group.hooks.filter((hook) => !isOurs(hook));
    removed += group.hooks.length - hooks.length;
    if (hooks.length === group.hooks.length) kept.push(group);
    else if (hooks.length > 0) kept.push({ ...group, hooks });
  }
  return { groups: kept, removed };
}

/** Where memtrace's hooks sit in an event list, in order. */
function locateOurs(groups: unknown[], isOurs: (hook: unknown) => boolean): Array<{ group: number; hook: number; matcher: unknown }> {
  const found: Array<{ group: number; hook: number; matcher: unknown }> = [];
  groups.forEach((group, g) => {
    if (!isGroup(group)) return;
    group.hooks.forEach((hook, h) => {
      if (isOurs(hook)) found.push({ group: g, hook: h, matcher: group.matcher });
    });
  });
  return found;
}

function readHooks(settings: JsonObject): { ok: true; hooks: JsonObject | undefined } | { ok: false; error: string } {
  const hooks = settings.hooks;
  if (hooks === undefined) return { ok: true, hooks: undefined };
  if (!isJsonObject(hooks)) return { ok: false, error: `"hooks" is ${describeJson(hooks)}, not an object; fix it by hand first` };
  return { ok: true, hooks };
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? 'a string' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Adds (or brings up to date) memtrace's hooks; a second call returns an identical object. */
export function installHooks(settings: JsonObject, wanted: WantedHooks, owns: OwnsCommand = isMemtraceHookCommand): MergeResult {
  const read = readHooks(settings);
  if (!read.ok) return read;
  const isOurs = ours(owns);
  const hooks: JsonObject = { ...(read.hooks ?? {}) };
  const changes: HookChange[] = [];
  const events = Object.keys(wanted);
  for (const event of events) {
    if (wanted[event] !== undefined && hooks[event] !== undefined && !Array.isArray(hooks[event])) {
      return { ok: false, error: `"hooks.${event}" is ${describeJson(hooks[event])}, not a list; fix it by hand first` };
    }
  }
  // Events memtrace no longer hooks (an older install): take its entries out.
  for (const event of Object.keys(hooks)) {
    if (wanted[event] !== undefined || !Array.isArray(hooks[event])) continue;
    const { groups, removed } = stripEvent(hooks[event] as unknown[], isOurs);
    if (removed === 0) continue;
    if (groups.length > 0) setOwn(hooks, event, groups);
    else delete hooks[event];
    changes.push({ event, action: 'removed' });
  }
  for (const event of events) {
    const want = wanted[event];
    if (want === undefined) continue;
    const current = (hooks[event] as unknown[] | undefined) ?? [];
    const next = placeEvent(current, want as unknown as JsonObject[], isOurs);
    if (next.action !== null) {
      setOwn(hooks, event, next.groups);
      changes.push({ event, action: next.action });
    }
  }
  if (changes.length === 0) return { ok: true, settings, changes, notices: installNotices(settings, owns) };
  const result = { ...settings, hooks };
  return { ok: true, settings: result, changes, notices: installNotices(result, owns) };
}

function placeEvent(current: unknown[], wanted: JsonObject[], isOurs: (hook: unknown) => boolean): { groups: unknown[]; action: HookChange['action'] | null } {
  const wantGroups = JSON.parse(JSON.stringify(wanted)) as JsonObject[]; // the result never aliases the caller's definitions
  const wantHooks = wantGroups.flatMap((group) => (group.hooks as unknown[]).map((hook) => ({ hook, matcher: group.matcher })));
  const found = locateOurs(current, isOurs);
  const linesUp = found.length === wantHooks.length && found.every((at, n) => at.matcher === wantHooks[n]!.matcher);
  if (linesUp) {
    if (found.every((at, n) => sameJson((current[at.group] as JsonObject & { hooks: unknown[] }).hooks[at.hook], wantHooks[n]!.hook))) {
      return { groups: current, action: null };
    }
    const groups = current.map((group) => (isGroup(group) ? { ...group, hooks: [...group.hooks] } : group));
    found.forEach((at, n) => {
      (groups[at.group] as { hooks: unknown[] }).hooks[at.hook] = wantHooks[n]!.hook;
    });
    return { groups, action: 'updated' };
  }
  const { groups } = stripEvent(current, isOurs);
  return { groups: [...groups, ...wantGroups], action: found.length === 0 ? 'added' : 'updated' };
}

/** Removes exactly memtrace's hooks; containers go only when this removal emptied them. */
export function uninstallHooks(settings: JsonObject, owns: OwnsCommand = isMemtraceHookCommand): MergeResult {
  const read = readHooks(settings);
  if (!read.ok) return read;
  const isOurs = ours(owns);
  if (read.hooks === undefined) return { ok: true, settings, changes: [], notices: uninstallNotices(settings, owns) };
  const hooks: JsonObject = { ...read.hooks };
  const changes: HookChange[] = [];
  for (const event of Object.keys(hooks)) {
    if (!Array.isArray(hooks[event])) continue;
    const { groups, removed } = stripEvent(hooks[event] as unknown[], isOurs);
    if (removed === 0) continue;
    if (groups.length > 0) setOwn(hooks, event, groups);
    else delete hooks[event];
    changes.push({ event, action: 'removed' });
  }
  if (changes.length === 0) return { ok: true, settings, changes, notices: uninstallNotices(settings, owns) };
  const result: JsonObject = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete result.hooks;
  return { ok: true, settings: result, changes, notices: uninstallNotices(result, owns) };
}

/** Hook commands that call memtrace but that install did not write (e.g. pasted from a README). */
export function foreignMemtraceHooks(settings: JsonObject, owns: OwnsCommand = isMemtraceHookCommand): Array<{ event: string; command: string }> {
  const isOurs = ours(owns);
  const found: Array<{ event: string; command: string }> = [];
  if (!isJsonObject(settings.hooks)) return found;
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isGroup(group)) continue;
      for (const hook of group.hooks) {
        if (!isJsonObject(hook) || typeof hook.command !== 'string' || isOurs(hook)) continue;
        if (/\bmemtrace(?:\.mjs)?"?\s+hook\s/.test(hook.command)) found.push({ event, command: hook.command });
      }
    }
  }
  return found;
}

function installNotices(settings: JsonObject, owns: OwnsCommand): string[] {
  const notices: string[] = [];
  if (settings.disableAllHooks === true)
    notices.push('"disableAllHooks" is true in this file: Claude Code runs no hooks (memtrace\'s included) until it is removed.');
  const plugins = settings.enabledPlugins;
  if (isJsonObject(plugins) && Object.entries(plugins).some(([id, on]) => id.startsWith('memtrace@') && on === true)) {
    notices.push(
      'the memtrace plugin is enabled in this file too: every event would be recorded twice; keep one (disable the plugin, or run memtrace uninstall).',
    );
  }
  for (const { event, command } of foreignMemtraceHooks(settings, owns)) {
    notices.push(`hooks.${event} also runs \`${command}\`, which memtrace install did not write: remove it, or the event is recorded twice.`);
  }
  return notices;
}

function uninstallNotices(settings: JsonObject, owns: OwnsCommand): string[] {
  return foreignMemtraceHooks(settings, owns).map(
    ({ event, command }) => `left in place: hooks.${event} runs \`${command}\`, which memtrace install did not write.`,
  );
}
