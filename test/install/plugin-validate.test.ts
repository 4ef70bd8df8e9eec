/**
 * The plugin checked by Claude Code's own validator (the pinned devDependency, offline, ~0.3 s a
 * run). Two folders: the package root as it is in the repository, and a staged copy holding what
 * npm ships for the plugin (.claude-plugin/, hooks/, bin/, package.json, README.md). --strict
 * makes warnings fail too: a wrongly typed hook entry is only a warning otherwise.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS } from '../../src/install/hook-definitions.js';
import { CLAUDE_BIN, claudeUnavailableReason } from '../support/claude-code.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping claude plugin validate: ${unavailable}`);
const SHIPPED = ['.claude-plugin', 'hooks', 'bin', 'package.json', 'README.md'];

describe.skipIf(unavailable !== null)('claude plugin validate --strict', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let staged: string;
  beforeAll(() => {
    temp = makeTempDir('memtrace-plugin-validate-');
    staged = path.join(temp.dir, 'package');
    for (const entry of SHIPPED) fs.cpSync(path.join(ROOT, entry), path.join(staged, entry), { recursive: true });
  });
  afterAll(() => temp.cleanup());

  const validate = (dir: string, ...flags: string[]) =>
    spawnSync(CLAUDE_BIN, ['plugin', 'validate', '--strict', ...flags, dir], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });

  it('passes the package root', () => {
    const run = validate(ROOT);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('✔ Validation passed');
    expect(run.stdout).not.toContain('with warnings');
  });

  it.each([
    ['the package root', () => ROOT],
    ['what the package ships', () => staged],
  ])('reports no error and no warning for %s, all six hooks and the MCP server', (_name, dir) => {
    const run = validate(dir(), '--json');
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ success: true, strict: true, manifest: { errors: [], warnings: [] } });
    expect(report.contents.flatMap((c: any) => [...(c.errors ?? []), ...(c.warnings ?? [])])).toEqual([]);
    expect(report.provides.hooks.map((h: any) => h.event)).toEqual([...CLAUDE_HOOK_EVENTS]);
    expect(
      report.provides.hooks.every(
        (h: any) => h.type === 'command' && /; exec sh "\$\{CLAUDE_PLUGIN_ROOT\}\/bin\/memtrace-hook" claude-code [a-z-]+ plugin node$/.test(h.command),
      ),
    ).toBe(true);
    expect(report.provides.mcpServers).toEqual([
      { name: 'memtrace', type: 'stdio', target: 'sh', args: ['${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook', 'mcp', 'node'] },
    ]);
  });
});
