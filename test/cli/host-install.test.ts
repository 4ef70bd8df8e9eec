import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { installedHookCommand } from '../support/installed-hook-command.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What the MCP entry runs: the forwarder's bridge, falling back to this node's stdio server. */
const BRIDGE = { command: 'sh', args: [path.join(ROOT, 'bin/memtrace-hook'), 'mcp', process.execPath] };
const BACKUP = /\.memtrace-backup-\d{8}T\d{6}Z(-\d+)?$/;

/** A user's Gemini settings: their own hooks, an MCP server, other keys, 4-space indent. */
const GEMINI_USER = `${JSON.stringify(
  {
    theme: 'GitHub',
    security: { auth: { selectedType: 'gemini-api-key' } },
    hooks: {
      BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', name: 'guard', command: '~/bin/guard.sh', timeout: 5000 }] }],
      AfterTool: [{ matcher: 'write_file|replace', hooks: [{ type: 'command', command: 'npx prettier --write .' }] }],
    },
    mcpServers: { docs: { command: 'docs-mcp', args: ['--stdio'] } },
  },
  null,
  4,
)}\n`;

/** A user's Codex hooks.json and config.toml (comments, a provider, another server). */
const CODEX_HOOKS = `${JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'notify-send ran', timeout: 5 }] }], Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }, null, 2)}\n`;
const CODEX_CONFIG = `# my codex
model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"  # local
wire_api = "responses"

[mcp_servers.docs]
command = "docs-mcp"
`;

describe('memtrace install / uninstall --host gemini-cli|codex', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let home: string;
  let project: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-host-install-');
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
  const seed = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  const backups = (dir: string) => fs.readdirSync(dir).filter((f) => BACKUP.test(f));

  it('Gemini: writes hooks and mcpServers.memtrace beside the user’s own, idempotently, and uninstall gives back the same bytes', async () => {
    const file = path.join(project, '.gemini', 'settings.json');
    seed(file, GEMINI_USER);
    const first = await run(['install', '--host', 'gemini-cli', '--project', project]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(
      `installed memtrace's hooks and MCP server in ${file} (added SessionStart, BeforeAgent, AfterTool, AfterAgent, SessionEnd, mcpServers.memtrace).`,
    );
    expect(first.stdout).toContain(`next: Gemini CLI runs a project's hooks only in a trusted folder: trust ${project} when Gemini CLI asks`);
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(settings.theme).toBe('GitHub');
    expect(settings.hooks.BeforeTool).toEqual(JSON.parse(GEMINI_USER).hooks.BeforeTool);
    expect(settings.hooks.AfterTool).toEqual([
      JSON.parse(GEMINI_USER).hooks.AfterTool[0],
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            name: 'memtrace-AfterTool',
            command: installedHookCommand(path.join(home, '.memtrace'), 'gemini-cli', 'AfterTool'),
            timeout: 10000,
          },
        ],
      },
    ]);
    expect(settings.hooks.SessionStart[0].hooks[0].timeout).toBe(15000);
    expect(settings.mcpServers).toEqual({
      docs: { command: 'docs-mcp', args: ['--stdio'] },
      memtrace: { ...BRIDGE, env: { NODE_EXTRA_CA_CERTS: '' } },
    });
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^\{\n {4}"theme"/); // the file's own indent
    const installed = fs.readFileSync(file);

    const again = await run(['install', '--host', 'gemini-cli', '--project', project]);
    expect(again.stdout).toContain('are already in Gemini CLI');
    expect(fs.readFileSync(file).equals(installed)).toBe(true);
    expect(backups(path.dirname(file))).toHaveLength(1);

    const removed = await run(['uninstall', '--host', 'gemini-cli', '--project', project]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(GEMINI_USER);
    // Install never writes trust on the user's behalf.
    expect(fs.existsSync(path.join(home, '.gemini', 'trustedFolders.json'))).toBe(false);
  });

  it('Codex: hooks in hooks.json (seconds, SessionEnd 3 s, prompts and tool calls async) and [mcp_servers.memtrace] in config.toml, every other line kept; uninstall restores both files', async () => {
    const dir = path.join(project, '.codex');
    seed(path.join(dir, 'hooks.json'), CODEX_HOOKS);
    seed(path.join(dir, 'config.toml'), CODEX_CONFIG);
    // A data dir of its own, inside the temp dir: install builds the native forwarder there.
    const dataDir = path.join(temp.dir, 'data mt');
    const first = await run(['install', '--host', 'codex', '--project', project], { MEMTRACE_DATA_DIR: dataDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`in ${path.join(dir, 'hooks.json')} (added SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd).`);
    expect(first.stdout).toContain(`in ${path.join(dir, 'config.toml')} (added [mcp_servers.memtrace]).`);
    expect(first.stdout).toContain(
      `next: Codex runs new hooks only once you trust them: open codex in ${project}, trust the project, and approve memtrace's hooks in /hooks.`,
    );
    const hooks = JSON.parse(fs.readFileSync(path.join(dir, 'hooks.json'), 'utf8')).hooks;
    expect(hooks.PostToolUse).toEqual([
      JSON.parse(CODEX_HOOKS).hooks.PostToolUse[0],
      { hooks: [{ type: 'command', command: installedHookCommand(dataDir, 'codex', 'PostToolUse'), timeout: 10, async: true }] },
    ]);
    expect(hooks.SessionEnd[0].hooks[0].timeout).toBe(3);
    // Codex waits for the session's start and end: the context, and the turn's summary request.
    expect(Object.fromEntries(Object.entries(hooks).map(([event, groups]: [string, any]) => [event, groups.at(-1).hooks[0].async ?? false]))).toEqual({
      SessionStart: false,
      UserPromptSubmit: true,
      PostToolUse: true,
      Stop: false,
      SessionEnd: false,
    });
    const toml = fs.readFileSync(path.join(dir, 'config.toml'), 'utf8');
    expect(toml.startsWith(CODEX_CONFIG)).toBe(true);
    const config = parse(toml) as any;
    expect(config.mcp_servers.memtrace).toEqual({
      ...BRIDGE,
      env: { NODE_EXTRA_CA_CERTS: '', MEMTRACE_DATA_DIR: dataDir },
    });
    expect(config.hooks).toBeUndefined(); // no trust state written
    expect(config.projects).toBeUndefined();

    expect((await run(['install', '--host', 'codex', '--project', project], { MEMTRACE_DATA_DIR: dataDir })).stdout).toContain('nothing changed');
    const removed = await run(['uninstall', '--host', 'codex', '--project', project]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'hooks.json'), 'utf8')).toBe(CODEX_HOOKS);
    expect(fs.readFileSync(path.join(dir, 'config.toml'), 'utf8')).toBe(CODEX_CONFIG);
    expect(backups(dir)).toHaveLength(4);
  });

  it('writes the user’s config without --project ($CODEX_HOME for Codex), creating files that did not exist', async () => {
    const codexHome = path.join(temp.dir, 'codex-home');
    expect((await run(['install', '--host', 'codex'], { CODEX_HOME: codexHome })).code).toBe(0);
    expect(fs.existsSync(path.join(codexHome, 'hooks.json'))).toBe(true);
    expect(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toMatch(/^\[mcp_servers\.memtrace\]\n/);
    expect((await run(['install', '--host', 'gemini-cli'])).stdout).toContain(`backup: none (there was no previous file).`);
    expect(JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')).hooks.AfterAgent).toHaveLength(1);
    await run(['uninstall', '--host', 'codex'], { CODEX_HOME: codexHome });
    expect(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toBe('');
  });

  it('prints the change as a diff with --dry-run and writes nothing', async () => {
    seed(path.join(project, '.codex', 'config.toml'), CODEX_CONFIG);
    const dry = await run(['install', '--host', 'codex', '--project', project, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: would change');
    expect(dry.stdout).toContain('+[mcp_servers.memtrace]');
    expect(dry.stdout).toContain('--- /dev/null');
    expect(fs.readFileSync(path.join(project, '.codex', 'config.toml'), 'utf8')).toBe(CODEX_CONFIG);
    expect(fs.existsSync(path.join(project, '.codex', 'hooks.json'))).toBe(false);
  });

  it('leaves a malformed file untouched, writes nothing else, and says where it is broken', async () => {
    const dir = path.join(project, '.codex');
    seed(path.join(dir, 'config.toml'), 'model = "x"\n[mcp_servers.docs\n');
    const r = await run(['install', '--host', 'codex', '--project', project]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config\.toml is not valid TOML: line 2, column \d+: .*Nothing was changed/);
    expect(fs.existsSync(path.join(dir, 'hooks.json'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'config.toml'), 'utf8')).toBe('model = "x"\n[mcp_servers.docs\n');

    seed(path.join(project, '.gemini', 'settings.json'), '{ "theme": "x", }\n');
    const g = await run(['install', '--host', 'gemini-cli', '--project', project]);
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/settings\.json is not valid JSON: line 1, column \d+: a trailing comma before '}'/);
  });

  it('keeps an mcpServers.memtrace it did not write, with a warning', async () => {
    const file = path.join(project, '.gemini', 'settings.json');
    seed(file, JSON.stringify({ mcpServers: { memtrace: { httpUrl: 'http://127.0.0.1:1/mcp' } } }));
    const r = await run(['install', '--host', 'gemini-cli', '--project', project]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('"mcpServers.memtrace" is already there and is not memtrace\'s server; left as it is');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.memtrace).toEqual({ httpUrl: 'http://127.0.0.1:1/mcp' });
    await run(['uninstall', '--host', 'gemini-cli', '--project', project]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ mcpServers: { memtrace: { httpUrl: 'http://127.0.0.1:1/mcp' } } });
  });

  it('refuses an unknown host with the usage', async () => {
    const r = await run(['install', '--host', 'cursor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--host takes claude-code, gemini-cli, codex, opencode, copilot or pi, got 'cursor'");
  });
});
