import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS, isMemtraceHookCommand, memtraceHooks, PLUGIN_FORWARDER, shellQuote } from '../../src/install/hook-definitions.js';

describe('memtraceHooks', () => {
  it('makes SessionStart a foreground command hook and the per-tool and per-prompt hooks async', () => {
    const hooks = memtraceHooks(PLUGIN_FORWARDER, 'plugin');
    expect(Object.keys(hooks)).toEqual([...CLAUDE_HOOK_EVENTS]);
    const only = (event: keyof typeof hooks) => hooks[event]![0]!.hooks[0]!;
    expect(only('SessionStart')).toEqual({
      type: 'command',
      command:
        'd=${MEMTRACE_DATA_DIR:-$HOME/.memtrace}; [ -O "$d/bin/hook" ] && [ -x "$d/bin/hook" ] && exec "$d/bin/hook" --direct "$d" claude-code session-start plugin "${CLAUDE_PLUGIN_ROOT}/bin" node; exec sh "${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook" claude-code session-start plugin node',
      timeout: 15,
    });
    for (const event of ['UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure'] as const) expect(only(event).async).toBe(true);
    expect(hooks.PostToolUse![0]!.matcher).toBe('*');
  });
});

describe('isMemtraceHookCommand', () => {
  it.each([
    'sh "${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook" claude-code stop plugin node',
    'sh /opt/memtrace/bin/memtrace-hook codex PostToolUse settings /usr/bin/node',
    '[ -O /h/.memtrace/bin/hook ] && [ -x /h/.memtrace/bin/hook ] && exec /h/.memtrace/bin/hook --direct /h/.memtrace claude-code stop settings /opt/memtrace/bin /usr/bin/node; exec sh /opt/memtrace/bin/memtrace-hook claude-code stop settings /usr/bin/node',
    'node "${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs" hook stop --via plugin',
    '/usr/bin/node /opt/memtrace/bin/memtrace.cjs hook post-tool-use --via settings',
    '"/Program Files/node" "/home/a b/memtrace/bin/memtrace.cjs" hook session-start --via settings',
    '/n /x/bin/memtrace.cjs hook stop --budget 3 --via settings --later-flag',
  ])('recognises %s', (command) => expect(isMemtraceHookCommand(command)).toBe(true));

  it.each([
    'npx memtrace hook stop',
    'sh /x/bin/memtrace-hook claude-code stop other node',
    'sh /x/bin/memtrace-hook someone-else stop settings',
    'node /x/bin/memtrace.cjs hook stop',
    'node /x/bin/memtrace.cjs hook stop --via other',
    'echo memtrace.cjs hook stop --via settingsX',
    'notify-send done',
    42,
  ])('does not claim %s', (command) => expect(isMemtraceHookCommand(command)).toBe(false));
});

describe('shellQuote', () => {
  it('leaves plain paths alone and quotes the rest so that sh reads back the same word', () => {
    expect(shellQuote('/usr/local/bin/node')).toBe('/usr/local/bin/node');
    for (const word of ['/home/a b/x', '/tmp/$HOME/`x`/"q"\\', "/it's/~here", '/a;b&c|d']) {
      const echoed = spawnSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' }).stdout;
      expect(echoed).toBe(word);
    }
  });
});
