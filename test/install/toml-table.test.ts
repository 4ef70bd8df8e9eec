import { describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { headerPath, removeTomlTable, setTomlTable } from '../../src/install/toml-table.js';

const PATH = ['mcp_servers', 'memtrace'];
const ENTRY = { command: '/usr/bin/node', args: ['/opt/memtrace/bin/memtrace.cjs', 'mcp'], env: { MEMTRACE_PORT: '37877' } };

/** A user's config.toml with comments, odd spacing, another server, a header-like line in a multi-line string. */
const USER = `# my codex config
model = "gpt-5.5"   # the default
approval_policy = "on-request"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"

# other servers
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]

[profiles.notes]
instructions = """
[mcp_servers.memtrace]
is just text here
"""
`;

const edit = (result: ReturnType<typeof setTomlTable>) => {
  if (!result.ok) throw new Error(result.error);
  return result;
};

describe('a TOML table written as text', () => {
  it('appends memtrace’s table, keeping every byte of the user’s file before it', () => {
    const out = edit(setTomlTable(USER, PATH, ENTRY));
    expect(out.action).toBe('added');
    expect(out.text.startsWith(USER)).toBe(true);
    expect(out.text.slice(USER.length)).toBe(
      '\n[mcp_servers.memtrace]\ncommand = "/usr/bin/node"\nargs = ["/opt/memtrace/bin/memtrace.cjs","mcp"]\n\n[mcp_servers.memtrace.env]\nMEMTRACE_PORT = "37877"\n',
    );
    expect((parse(out.text) as any).mcp_servers).toEqual({ docs: { command: 'docs-mcp', args: ['--stdio'] }, memtrace: ENTRY });
  });

  it('changes nothing the second time, updates in place, and removes exactly what it wrote', () => {
    const once = edit(setTomlTable(USER, PATH, ENTRY)).text;
    expect(edit(setTomlTable(once, PATH, ENTRY))).toEqual({ ok: true, text: once, action: null });
    const moved = edit(setTomlTable(once, PATH, { ...ENTRY, command: '/usr/local/bin/node' }));
    expect(moved.action).toBe('updated');
    expect(moved.text).toBe(once.replace('command = "/usr/bin/node"', 'command = "/usr/local/bin/node"'));
    expect(edit(removeTomlTable(once, PATH))).toEqual({ ok: true, text: USER, action: 'removed' });
    expect(edit(removeTomlTable(USER, PATH))).toEqual({ ok: true, text: USER, action: null });
  });

  it('replaces a table in the middle of the file, leaving the comment of the next one where it is', () => {
    const middle = `[mcp_servers.memtrace]\ncommand = "memtrace"\nargs = ["mcp"]\n\n[mcp_servers.memtrace.env]\nX = "1"\n\n# the docs server\n[mcp_servers.docs]\ncommand = "d"\n`;
    const out = edit(setTomlTable(middle, PATH, { command: 'n', args: ['b', 'mcp'] }));
    expect(out.text).toBe('[mcp_servers.memtrace]\ncommand = "n"\nargs = ["b","mcp"]\n\n# the docs server\n[mcp_servers.docs]\ncommand = "d"\n');
    expect(edit(removeTomlTable(middle, PATH)).text).toBe('\n# the docs server\n[mcp_servers.docs]\ncommand = "d"\n');
  });

  it('refuses a malformed file with its line and column', () => {
    const result = setTomlTable('model = "x"\n[broken\n', PATH, ENTRY);
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/^is not valid TOML: line 2, column \d+/) });
  });

  it('refuses to edit a table written inline or as dotted keys rather than damage it', () => {
    expect(setTomlTable('mcp_servers = { memtrace = { command = "x" } }\n', PATH, ENTRY)).toMatchObject({
      ok: false,
      error: expect.stringContaining('change it by hand'),
    });
    expect(setTomlTable('[mcp_servers]\nmemtrace.command = "x"\n', PATH, ENTRY)).toMatchObject({ ok: false });
    expect(removeTomlTable('mcp_servers.memtrace.command = "x"\n', PATH)).toMatchObject({ ok: false, error: expect.stringContaining('remove it by hand') });
  });

  it('reads quoted and spaced header keys', () => {
    expect(headerPath('[ mcp_servers . "memtrace" ]  # ours')).toEqual({ path: ['mcp_servers', 'memtrace'], array: false });
    expect(headerPath("[[a.'b.c']]")).toEqual({ path: ['a', 'b.c'], array: true });
    expect(headerPath('key = "[x]"')).toBeNull();
  });
});
