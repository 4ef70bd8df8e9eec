import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS } from '../../src/install/hook-definitions.js';
import { isMemtraceMcpEntry } from '../../src/install/mcp-definition.js';
import { packageFacts, PLUGIN_HOOKS_PATH, PLUGIN_MANIFEST_PATH, REGENERATE_PLUGIN_COMMAND, renderPluginFiles } from '../../src/install/plugin-files.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('the committed plugin files', () => {
  it('match the generator (hook definitions + package.json)', () => {
    for (const [relative, expected] of Object.entries(renderPluginFiles(packageFacts(pkg)))) {
      const committed = fs.existsSync(path.join(ROOT, relative)) ? fs.readFileSync(path.join(ROOT, relative), 'utf8') : '(missing)';
      expect(committed, `${relative} drifted from src/install: run \`${REGENERATE_PLUGIN_COMMAND}\``).toBe(expected);
    }
  });

  it("carry package.json's name and version", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, PLUGIN_MANIFEST_PATH), 'utf8'));
    expect({ name: manifest.name, version: manifest.version }, `plugin.json must follow package.json: run \`${REGENERATE_PLUGIN_COMMAND}\``).toEqual({
      name: pkg.name,
      version: pkg.version,
    });
  });

  /** The data dir's native build, run by Claude Code's shell itself where there is one, else the package's script through ${CLAUDE_PLUGIN_ROOT}. */
  const PLUGIN_HOOK_COMMAND =
    /^d=\$\{MEMTRACE_DATA_DIR:-\$HOME\/\.memtrace\}; \[ -O "\$d\/bin\/hook" \] && \[ -x "\$d\/bin\/hook" \] && exec "\$d\/bin\/hook" --direct "\$d" claude-code ([a-z-]+) plugin "\$\{CLAUDE_PLUGIN_ROOT\}\/bin" node; exec sh "\$\{CLAUDE_PLUGIN_ROOT\}\/bin\/memtrace-hook" claude-code \1 plugin node$/;

  it("run the package's bin through ${CLAUDE_PLUGIN_ROOT}, SessionStart in the foreground, tool hooks async", () => {
    const { hooks } = JSON.parse(fs.readFileSync(path.join(ROOT, PLUGIN_HOOKS_PATH), 'utf8'));
    expect(Object.keys(hooks)).toEqual([...CLAUDE_HOOK_EVENTS]);
    for (const event of CLAUDE_HOOK_EVENTS) {
      for (const group of hooks[event]) for (const hook of group.hooks) expect(hook.command).toMatch(PLUGIN_HOOK_COMMAND);
    }
    expect(hooks.SessionStart[0].hooks[0]).not.toHaveProperty('async');
    expect(hooks.PostToolUse[0].hooks[0].async).toBe(true);
    expect(hooks.PostToolUseFailure[0].hooks[0].async).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'bin/memtrace.cjs'))).toBe(true);
  });

  it('carry the MCP server as "memtrace", the package\'s bridge through ${CLAUDE_PLUGIN_ROOT}, and no root .mcp.json', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, PLUGIN_MANIFEST_PATH), 'utf8'));
    expect(manifest.mcpServers).toEqual({
      memtrace: { command: 'sh', args: ['${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook', 'mcp', 'node'], env: { NODE_EXTRA_CA_CERTS: '' } },
    });
    expect(isMemtraceMcpEntry(manifest.mcpServers.memtrace)).toBe(true);
    // A root .mcp.json would also be this checkout's own project servers.
    expect(fs.existsSync(path.join(ROOT, '.mcp.json'))).toBe(false);
  });

  it('refuses to render without the package.json fields the manifest needs', () => {
    expect(() => packageFacts({ name: 'memtrace', version: '1.0.0', description: 'x' })).toThrow('package.json has no "license"');
  });
});
