import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { installedHookCommand } from '../support/installed-hook-command.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BACKUP = /\.memtrace-backup-\d{8}T\d{6}Z(-\d+)?$/;
const EVENTS = ['sessionStart', 'userPromptSubmitted', 'postToolUse', 'postToolUseFailure', 'agentStop', 'sessionEnd'];

/** A user's own Copilot MCP servers (2-space JSON) and a hook they added to memtrace's file. */
const USER_MCP = `${JSON.stringify({ mcpServers: { docs: { type: 'local', command: 'docs-mcp', args: ['--stdio'], tools: ['*'] } } }, null, 2)}\n`;

describe('memtrace install / uninstall --host copilot', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let home: string;
  let project: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-copilot-install-');
    home = path.join(temp.dir, 'home');
    project = path.join(temp.dir, 'my project');
    fs.mkdirSync(home);
    fs.mkdirSync(project);
  });
  afterEach(() => temp.cleanup());

  async function run(args: string[], env: Record<string, string> = {}) {
    const c = captureIO({ env: { HOME: home, ...env }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  }
  const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
  /** Every file under a folder, with its bytes: install must touch nothing else (no trusted folders). */
  const snapshot = (dir: string): Record<string, string> =>
    Object.fromEntries(
      (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((e) => e.isFile())
        .map((e) => {
          const file = path.join(e.parentPath, e.name);
          return [path.relative(dir, file), fs.readFileSync(file, 'utf8')];
        }),
    );

  it('writes its own hook file and the MCP server at user scope, idempotently, trusts nothing, and uninstall gives the user’s files back', async () => {
    const copilot = path.join(home, '.copilot');
    fs.mkdirSync(copilot);
    fs.writeFileSync(path.join(copilot, 'mcp-config.json'), USER_MCP);
    fs.writeFileSync(path.join(copilot, 'config.json'), '{"trustedFolders":[]}\n');
    const before = snapshot(home);

    const first = await run(['install', '--host', 'copilot']);
    expect(first.code, first.stderr).toBe(0);
    const hooksFile = path.join(copilot, 'hooks', 'memtrace.json');
    const hooks = readJson(hooksFile);
    expect(hooks.version).toBe(1);
    expect(Object.keys(hooks.hooks)).toEqual(EVENTS);
    for (const event of EVENTS)
      expect(hooks.hooks[event]).toEqual([
        { type: 'command', bash: installedHookCommand(path.join(home, '.memtrace'), 'copilot', event), timeoutSec: event === 'sessionStart' ? 15 : 10 },
      ]);
    const mcp = readJson(path.join(copilot, 'mcp-config.json'));
    expect(Object.keys(mcp.mcpServers)).toEqual(['docs', 'memtrace']);
    expect(mcp.mcpServers.memtrace).toEqual({
      type: 'local',
      command: 'sh',
      args: [path.join(ROOT, 'bin/memtrace-hook'), 'mcp', process.execPath],
      env: { NODE_EXTRA_CA_CERTS: '' },
      tools: ['*'],
    });
    expect(first.stdout).toContain(`installed memtrace's hooks and MCP server in ${hooksFile}`);
    expect(first.stdout).toContain('backup: none (there was no previous file).');
    expect(first.stdout).toContain("next: start a Copilot CLI session; memtrace's worker starts on its first sessionStart");
    expect(first.stdout).toMatch(/^observer: /m);
    // Folder trust is the user's: config.json (trustedFolders) is untouched.
    expect(fs.readFileSync(path.join(copilot, 'config.json'), 'utf8')).toBe(before['.copilot/config.json']);
    expect(fs.readdirSync(copilot).filter((f) => BACKUP.test(f))).toHaveLength(1);

    const again = await run(['install', '--host', 'copilot']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("are already in Copilot CLI's config");

    // The user adds their own hook to memtrace's file: install and uninstall leave it alone.
    hooks.hooks.postToolUse.push({ type: 'command', bash: 'notify-send ran', timeoutSec: 5 });
    fs.writeFileSync(hooksFile, `${JSON.stringify(hooks, null, 2)}\n`);
    expect((await run(['install', '--host', 'copilot'])).stdout).toContain('nothing changed');
    const partial = await run(['uninstall', '--host', 'copilot']);
    expect(partial.code, partial.stderr).toBe(0);
    expect(readJson(hooksFile)).toEqual({ version: 1, hooks: { postToolUse: [{ type: 'command', bash: 'notify-send ran', timeoutSec: 5 }] } });
    expect(fs.readFileSync(path.join(copilot, 'mcp-config.json'), 'utf8')).toBe(USER_MCP);

    // Without the user's hook, uninstall removes memtrace's file (kept as a backup).
    await run(['install', '--host', 'copilot']);
    const withUsers = readJson(hooksFile);
    withUsers.hooks.postToolUse = withUsers.hooks.postToolUse.filter((h: { bash: string }) => h.bash !== 'notify-send ran');
    fs.writeFileSync(hooksFile, `${JSON.stringify(withUsers, null, 2)}\n`);
    const gone = await run(['uninstall', '--host', 'copilot']);
    expect(gone.stdout).toContain(`removed ${hooksFile}: it held only memtrace's hooks`);
    expect(fs.existsSync(hooksFile)).toBe(false);
    expect(fs.readdirSync(path.dirname(hooksFile)).filter((f) => BACKUP.test(f)).length).toBeGreaterThan(0);
    expect((await run(['uninstall', '--host', 'copilot'])).stdout).toContain('nothing changed');
  });

  it('follows COPILOT_HOME, prints a dry run as a diff and writes nothing', async () => {
    const copilotHome = path.join(temp.dir, 'elsewhere');
    const dry = await run(['install', '--host', 'copilot', '--dry-run'], { COPILOT_HOME: copilotHome });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`dry run: would change ${path.join(copilotHome, 'hooks', 'memtrace.json')}`);
    expect(dry.stdout).toContain('+    "sessionStart": [');
    expect(fs.existsSync(copilotHome)).toBe(false);
    expect((await run(['install', '--host', 'copilot'], { COPILOT_HOME: copilotHome })).code).toBe(0);
    expect(fs.existsSync(path.join(copilotHome, 'hooks', 'memtrace.json'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.copilot'))).toBe(false);
  });

  it('with --project writes the repository’s .github/hooks and .github/mcp.json and names the one step: trusting the folder', async () => {
    const r = await run(['install', '--host', 'copilot', '--project', project]);
    expect(r.code, r.stderr).toBe(0);
    expect(readJson(path.join(project, '.github', 'hooks', 'memtrace.json')).hooks.agentStop).toHaveLength(1);
    expect(readJson(path.join(project, '.github', 'mcp.json')).mcpServers.memtrace.type).toBe('local');
    expect(r.stdout).toContain(`next: Copilot CLI runs a repository's hooks and MCP servers only in a folder you trust: start copilot in ${project}`);
    expect(r.stdout).toContain(`undo: memtrace uninstall --host copilot --project ${project}`);
    expect(fs.existsSync(path.join(home, '.copilot'))).toBe(false);
  });

  it('leaves a malformed file untouched, with its line, and writes nothing else', async () => {
    const copilot = path.join(home, '.copilot');
    fs.mkdirSync(copilot);
    fs.writeFileSync(path.join(copilot, 'mcp-config.json'), '{"mcpServers": {\n  "docs": }\n');
    const r = await run(['install', '--host', 'copilot']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path.join(copilot, 'mcp-config.json')} is not valid JSON: line 2`);
    expect(fs.existsSync(path.join(copilot, 'hooks'))).toBe(false);
  });
});
