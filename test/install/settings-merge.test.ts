import { describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS, memtraceHooks } from '../../src/install/hook-definitions.js';
import { settingsForwarder } from '../../src/install/package-root.js';
import { foreignMemtraceHooks, installHooks, uninstallHooks, type JsonObject, type MergeResult } from '../../src/install/settings-merge.js';

const WANTED = memtraceHooks(settingsForwarder('/usr/local/bin/node', '/opt/memtrace', '/home/me/.memtrace'), 'settings');

/** The entries 0.2.0 wrote: `<invoke> hook <event> --via <mode>`, before the forwarder. */
function legacyHooks(invoke: string, mode: 'plugin' | 'settings') {
  const hooks = memtraceHooks({ script: 'x', bin: '.', node: 'node', native: null }, mode);
  for (const groups of Object.values(hooks)) for (const hook of groups[0]!.hooks) hook.command = `${invoke} hook ${hook.command.split(' ')[3]} --via ${mode}`;
  return hooks;
}

function settled(result: MergeResult): Extract<MergeResult, { ok: true }> {
  if (!result.ok) throw new Error(result.error);
  return result;
}
const install = (settings: JsonObject, wanted = WANTED) => settled(installHooks(settings, wanted));
const uninstall = (settings: JsonObject) => settled(uninstallHooks(settings));
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const userHook = { type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' };
const USER_SETTINGS: JsonObject = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/guard.sh' }] }],
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [userHook] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
  env: { FOO: 'bar' },
};

describe('installHooks', () => {
  it('adds one group per memtrace event after the user hooks, keeping every other key in its place', () => {
    const before = clone(USER_SETTINGS);
    const { settings, changes } = install(before);
    expect(before).toEqual(USER_SETTINGS); // input not mutated
    expect(Object.keys(settings)).toEqual(Object.keys(USER_SETTINGS));
    const hooks = settings.hooks as any;
    expect(Object.keys(hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'UserPromptSubmit', 'PostToolUseFailure', 'SessionEnd']);
    expect(hooks.PreToolUse).toEqual((USER_SETTINGS.hooks as any).PreToolUse);
    expect(hooks.PostToolUse).toEqual([{ matcher: 'Edit|Write', hooks: [userHook] }, ...WANTED.PostToolUse!]);
    expect(hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'notify-send done' }] });
    expect(hooks.Stop[1]).toEqual(WANTED.Stop![0]);
    expect(changes.map((c) => c.action)).toEqual(CLAUDE_HOOK_EVENTS.map(() => 'added'));
  });

  it('is idempotent: a second install returns an identical object and no changes', () => {
    const once = install(clone(USER_SETTINGS)).settings;
    const twice = install(clone(once));
    expect(twice.changes).toEqual([]);
    expect(twice.settings).toEqual(once);
    expect(JSON.stringify(twice.settings)).toBe(JSON.stringify(once));
  });

  it('creates the hooks object at the end when the file has none', () => {
    const { settings } = install({ model: 'sonnet' });
    expect(Object.keys(settings)).toEqual(['model', 'hooks']);
    expect(settings.hooks).toEqual(WANTED);
  });

  it('updates an older memtrace entry in place (other path, other flags) instead of adding a second one', () => {
    const old = legacyHooks('/old/node "/home/me/old place/memtrace/bin/memtrace.cjs"', 'settings');
    const oldPost = old.PostToolUse![0]!.hooks[0]!;
    oldPost.command = oldPost.command.replace('--via settings', '--legacy --via settings');
    delete oldPost.async;
    const installedOld = install(clone(USER_SETTINGS), old).settings;
    const { settings, changes } = install(clone(installedOld));
    expect(changes).toEqual(CLAUDE_HOOK_EVENTS.map((event) => ({ event, action: 'updated' })));
    expect(settings).toEqual(install(clone(USER_SETTINGS)).settings);
  });

  it('moves a plugin-mode entry found in settings over to settings mode rather than keeping both', () => {
    const withPlugin = install({}, legacyHooks('node "${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs"', 'plugin')).settings;
    expect(install(withPlugin).settings).toEqual({ hooks: WANTED });
  });

  it("keeps a user's hook that sits in memtrace's own matcher group, and memtrace's entry where it is", () => {
    const installed = install(clone(USER_SETTINGS)).settings as any;
    installed.hooks.PostToolUse[1].hooks.push({ type: 'command', command: 'echo mine' });
    const again = install(clone(installed));
    expect(again.changes).toEqual([]);
    const older = clone(installed);
    older.hooks.PostToolUse[1].hooks[0].command = '/old/node /old/bin/memtrace.cjs hook post-tool-use --via settings';
    const updated = install(older).settings as any;
    expect(updated.hooks.PostToolUse[1].hooks).toEqual([WANTED.PostToolUse![0]!.hooks[0], { type: 'command', command: 'echo mine' }]);
  });

  it('replaces duplicates (two memtrace entries for one event) with exactly one group', () => {
    const dup = { hooks: { Stop: [...WANTED.Stop!, ...WANTED.Stop!, { hooks: [{ type: 'command', command: 'say hi' }] }] } };
    const stop = (install(clone(dup)).settings.hooks as any).Stop;
    expect(stop).toEqual([{ hooks: [{ type: 'command', command: 'say hi' }] }, ...WANTED.Stop!]);
  });

  it('removes memtrace entries from events memtrace no longer hooks', () => {
    const stale = { hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'node /x/bin/memtrace.cjs hook pre-compact --via settings' }] }] } };
    const { settings, changes } = install(stale);
    expect(Object.keys(settings.hooks as object)).not.toContain('PreCompact');
    expect(changes[0]).toEqual({ event: 'PreCompact', action: 'removed' });
  });

  it('leaves groups it cannot read (not an object, no hooks list) exactly as they are', () => {
    const odd = { hooks: { PostToolUse: ['weird', { matcher: 'x' }] } };
    const post = (install(clone(odd)).settings.hooks as any).PostToolUse;
    expect(post.slice(0, 2)).toEqual(['weird', { matcher: 'x' }]);
  });

  it('refuses hooks that are not an object, or an event that is not a list, naming the key', () => {
    expect(installHooks({ hooks: [] }, WANTED)).toEqual({ ok: false, error: '"hooks" is a list, not an object; fix it by hand first' });
    expect(installHooks({ hooks: { Stop: {} } }, WANTED)).toEqual({ ok: false, error: '"hooks.Stop" is an object, not a list; fix it by hand first' });
  });

  it('keeps a __proto__ key as plain data', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "hooks": {"__proto__": []}}') as JsonObject;
    const { settings } = install(parsed);
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.keys(settings)).toEqual(['__proto__', 'hooks']);
    expect(Object.keys(settings.hooks as object)[0]).toBe('__proto__');
  });

  it('warns about disableAllHooks, an enabled memtrace plugin, and hand-written memtrace hooks', () => {
    const settings = {
      disableAllHooks: true,
      enabledPlugins: { 'memtrace@local': true, 'other@x': true },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npx memtrace hook stop' }] }] },
    };
    const { notices } = install(settings);
    expect(notices).toHaveLength(3);
    expect(notices[0]).toContain('disableAllHooks');
    expect(notices[1]).toContain('plugin is enabled');
    expect(notices[2]).toContain('`npx memtrace hook stop`');
  });
});

describe('uninstallHooks', () => {
  it('gives back the original object after an install, key order included', () => {
    for (const original of [USER_SETTINGS, {}, { model: 'x' }, { hooks: { Stop: [{ hooks: [userHook] }] } }]) {
      const round = uninstall(install(clone(original)).settings).settings;
      expect(JSON.stringify(round)).toBe(JSON.stringify(original));
    }
  });

  it("removes only memtrace's hook from a shared group and keeps the group with the user's hook", () => {
    const installed = install(clone(USER_SETTINGS)).settings as any;
    installed.hooks.PostToolUse[1].hooks.unshift({ type: 'command', command: 'echo mine' });
    const after = uninstall(installed).settings as any;
    expect(after.hooks.PostToolUse).toEqual([
      { matcher: 'Edit|Write', hooks: [userHook] },
      { matcher: '*', hooks: [{ type: 'command', command: 'echo mine' }] },
    ]);
  });

  it('leaves empty containers it did not empty itself', () => {
    const settings = { hooks: { PreToolUse: [], PostToolUse: [{ matcher: 'x', hooks: [] }] } };
    const installed = install(clone(settings)).settings;
    expect(uninstall(installed).settings).toEqual(settings);
  });

  it('drops an empty event list or hooks object the user had, once memtrace had filled it (the documented limit)', () => {
    expect(uninstall(install({ hooks: { Stop: [], PreToolUse: [] } }).settings).settings).toEqual({ hooks: { PreToolUse: [] } });
    expect(uninstall(install({ hooks: {} }).settings).settings).toEqual({});
  });

  it('changes nothing when memtrace wrote nothing, and leaves hand-written memtrace hooks in place with a notice', () => {
    const settings = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npx memtrace hook stop' }] }] } };
    const result = uninstall(settings);
    expect(result.settings).toBe(settings);
    expect(result.changes).toEqual([]);
    expect(result.notices).toEqual(['left in place: hooks.Stop runs `npx memtrace hook stop`, which memtrace install did not write.']);
    expect(foreignMemtraceHooks(settings)).toEqual([{ event: 'Stop', command: 'npx memtrace hook stop' }]);
  });
});
