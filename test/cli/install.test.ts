import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { CLAUDE_HOOK_EVENTS } from '../../src/install/hook-definitions.js';
import { isMemtraceMcpEntry } from '../../src/install/mcp-definition.js';
import { captureIO } from '../support/cli-io.js';
import { installedHookCommand } from '../support/installed-hook-command.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/claude-settings');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
const BACKUP = /\.memtrace-backup-\d{8}T\d{6}Z(-\d+)?$/;

describe('memtrace install / uninstall', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let home: string;
  let configDir: string;
  let userFile: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-install-');
    home = path.join(temp.dir, 'home');
    configDir = path.join(temp.dir, 'claude-config');
    userFile = path.join(configDir, 'settings.json');
    fs.mkdirSync(home);
  });
  afterEach(() => temp.cleanup());

  /** Never the real ~/.claude: HOME and CLAUDE_CONFIG_DIR always point into the temp dir. */
  async function run(args: string[], env: Record<string, string | undefined> = { CLAUDE_CONFIG_DIR: configDir }) {
    const c = captureIO({ env: { HOME: home, ...env }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  }
  const seed = (file: string, bytes: Buffer | string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
  };
  const files = (dir: string) => fs.readdirSync(dir).sort();

  it('builds the native hook forwarder in the data dir, whatever other worker setting is wrong', async () => {
    const dataDir = path.join(temp.dir, 'data');
    const r = await run(['install'], { CLAUDE_CONFIG_DIR: configDir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: 'not-a-port' });
    expect(r.code, r.stderr).toBe(0);
    const [program] = files(path.join(dataDir, 'bin'));
    expect(r.stdout).toContain(`hook forwarder: built ${path.join(dataDir, 'bin', program!)}`);
  });

  it('installs into $CLAUDE_CONFIG_DIR/settings.json and a second install gives the same file', async () => {
    seed(userFile, fixture('user-settings.json'));
    const first = await run(['install']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`installed memtrace's hooks in ${userFile} (added ${CLAUDE_HOOK_EVENTS.join(', ')}).`);
    expect(first.stdout).toMatch(/backup of the previous file: .*settings\.json\.memtrace-backup-\d{8}T\d{6}Z\n/);
    expect(first.stdout).toContain("next: start a Claude Code session; memtrace's worker starts on the first SessionStart.");
    const afterFirst = fs.readFileSync(userFile);

    const second = await run(['install']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`memtrace's hooks are already in ${userFile}; nothing changed.`);
    expect(fs.readFileSync(userFile).equals(afterFirst)).toBe(true);
    expect(files(configDir).filter((f) => BACKUP.test(f))).toHaveLength(1);

    const settings = JSON.parse(afterFirst.toString());
    const command: string = settings.hooks.SessionStart[0].hooks[0].command;
    const dataDir = path.join(home, '.memtrace');
    expect(command).toBe(installedHookCommand(dataDir, 'claude-code', 'session-start'));
    // The host's shell runs the data dir's native build with the intended argv (a stand-in that prints it)...
    fs.mkdirSync(path.join(dataDir, 'bin'), { recursive: true });
    fs.rmSync(path.join(dataDir, 'bin', 'hook'), { force: true });
    fs.writeFileSync(path.join(dataDir, 'bin', 'hook'), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o700 });
    const argv = (run: ReturnType<typeof spawnSync>) => String(run.stdout).trim().split('\n');
    expect(argv(spawnSync('sh', ['-c', command], { encoding: 'utf8', input: '' }))).toEqual([
      '--direct',
      dataDir,
      'claude-code',
      'session-start',
      'settings',
      path.join(ROOT, 'bin'),
      process.execPath,
    ]);
    // ...and without one, the script, which the shell reads back as the intended argv too.
    const script = command.slice(command.indexOf('; exec ') + '; exec '.length);
    expect(argv(spawnSync('sh', ['-c', `printf '%s\\n' ${script}`], { encoding: 'utf8' }))).toEqual([
      'sh',
      path.join(ROOT, 'bin/memtrace-hook'),
      'claude-code',
      'session-start',
      'settings',
      process.execPath,
    ]);
  });

  it.each(['user-settings.json', 'project-settings-4space.json', 'tabs-crlf.json', 'empty.json'])(
    'install then uninstall gives back %s byte for byte, the user hooks untouched',
    async (name) => {
      seed(userFile, fixture(name));
      expect((await run(['install'])).code).toBe(0);
      expect(fs.readFileSync(userFile).equals(fixture(name))).toBe(false);
      const removed = await run(['uninstall']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`uninstalled memtrace's hooks in ${userFile}`);
      expect(fs.readFileSync(userFile).toString()).toBe(fixture(name).toString());
      expect(fs.readFileSync(userFile).equals(fixture(name))).toBe(true);
      const again = await run(['uninstall']);
      expect(again.stdout).toContain('no hooks written by memtrace install');
    },
  );

  it('keeps the content of a hand-laid-out file (rewritten as plain JSON, original in the backup)', async () => {
    seed(userFile, fixture('hand-laid-out.json'));
    const installed = await run(['install']);
    expect(installed.stderr).toContain('is laid out by hand; it is rewritten as plain indented JSON');
    const backup = installed.stdout.match(/backup of the previous file: (.*)\n/)![1]!;
    expect(fs.readFileSync(backup).equals(fixture('hand-laid-out.json'))).toBe(true);
    await run(['uninstall']);
    expect(JSON.parse(fs.readFileSync(userFile, 'utf8'))).toEqual(JSON.parse(fixture('hand-laid-out.json').toString()));
  });

  it('leaves a malformed settings.json unchanged, with the file, line and column, exit 1', async () => {
    const broken = '{\n  "model": "opus",\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n';
    seed(userFile, broken);
    for (const command of ['install', 'uninstall']) {
      const r = await run([command]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `memtrace ${command}: ${userFile} is not valid JSON: line 4, column 26: a trailing comma before ']'. Nothing was changed; fix the file (or move it aside) and run the command again.\n`,
      );
      expect(r.stdout).toBe('');
    }
    expect(fs.readFileSync(userFile, 'utf8')).toBe(broken);
    expect(files(configDir)).toEqual(['settings.json']);
  });

  it('refuses settings whose hooks it cannot read, unchanged', async () => {
    seed(userFile, '{"hooks": ["oops"]}\n');
    const r = await run(['install']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${userFile}: "hooks" is a list, not an object; fix it by hand first. Nothing was changed.`);
    seed(userFile, '"just a string"');
    expect((await run(['install'])).stderr).toContain('holds a string, not a JSON object of settings');
    expect(files(configDir)).toEqual(['settings.json']);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    seed(userFile, fixture('user-settings.json'));
    const dry = await run(['install', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`dry run: would change ${userFile} (added ${CLAUDE_HOOK_EVENTS.join(', ')}); nothing written.`);
    expect(dry.stdout).toContain(`--- ${userFile} (now)\n+++ ${userFile} (after)\n@@ `);
    expect(dry.stdout).toMatch(/^\+.*memtrace-hook claude-code post-tool-use settings .*",$/m);
    expect(fs.readFileSync(userFile).equals(fixture('user-settings.json'))).toBe(true);
    expect(files(configDir)).toEqual(['settings.json']);

    await run(['install']);
    const installed = fs.readFileSync(userFile);
    const dryRemove = await run(['uninstall', '--dry-run']);
    expect(dryRemove.stdout).toMatch(/^-.*memtrace-hook claude-code session-end settings .*",$/m);
    expect(fs.readFileSync(userFile).equals(installed)).toBe(true);
  });

  it('--project DIR writes DIR/.claude/settings.json, creating .claude, and leaves the user settings alone', async () => {
    const project = path.join(temp.dir, 'app');
    fs.mkdirSync(project);
    const dry = await run(['install', '--project', 'app', '--dry-run']);
    expect(dry.stdout).toContain('--- /dev/null');
    expect(fs.existsSync(path.join(project, '.claude'))).toBe(false);
    const r = await run(['install', '--project', 'app']);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(project, '.claude', 'settings.json');
    expect(r.stdout).toContain(`in ${file}`);
    expect(r.stdout).toContain('backup: none (there was no previous file).');
    expect(r.stdout).toContain('undo: memtrace uninstall --project app');
    expect(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).hooks)).toEqual([...CLAUDE_HOOK_EVENTS]);
    expect(fs.existsSync(configDir)).toBe(false);
    expect((await run(['uninstall', '--project', project])).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('{}\n');
  });

  it('ends with one line naming the observer the worker will run for this host, and why', async () => {
    const bin = path.join(temp.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    const withCli = await run(['install', '--dry-run'], { CLAUDE_CONFIG_DIR: configDir, PATH: bin });
    expect(withCli.stdout.trimEnd().split('\n').at(-1)).toBe(
      'observer: claude-code (haiku) — no API key is set; claude is on PATH and observes with your own login',
    );
    const withKey = await run(['install', '--dry-run'], { CLAUDE_CONFIG_DIR: configDir, PATH: bin, ANTHROPIC_API_KEY: 'sk-ant-x' });
    expect(withKey.stdout.trimEnd().split('\n').at(-1)).toBe('observer: anthropic (claude-haiku-4-5) — ANTHROPIC_API_KEY is set');
    const nothing = await run(['install', '--dry-run'], { CLAUDE_CONFIG_DIR: configDir, PATH: path.join(temp.dir, 'empty') });
    expect(nothing.stdout).toContain(
      'observer: none — no API key is set and no agent CLI (claude, gemini, codex, opencode, copilot, pi) is on PATH; events are stored, not observed',
    );
  });

  it('--project with a missing directory is a usage error (exit 2)', async () => {
    const r = await run(['install', '--project', 'nowhere']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memtrace install: --project: no such directory 'nowhere'\n\nusage: memtrace install/);
    fs.writeFileSync(path.join(temp.dir, 'file'), '');
    expect((await run(['uninstall', '--project', 'file'])).stderr).toContain("'file' is not a directory");
    expect((await run(['install', '--bogus'])).code).toBe(2);
  });

  it('uses ~/.claude/settings.json from HOME when CLAUDE_CONFIG_DIR is not set', async () => {
    const r = await run(['install'], {});
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(home, '.claude', 'settings.json'))).toBe(true);
    const removed = await run(['uninstall'], {});
    expect(removed.code).toBe(0);
    expect(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
  });

  it('uninstall with no settings file changes nothing and creates nothing', async () => {
    const r = await run(['uninstall']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${userFile} does not exist; nothing to remove.\n${path.join(configDir, '.claude.json')} does not exist; nothing to remove.\n`);
    expect(fs.existsSync(configDir)).toBe(false);
  });

  it('warns about hooks pasted by hand and leaves them in place', async () => {
    seed(
      userFile,
      '{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "type": "command",\n            "command": "npx memtrace hook stop"\n          }\n        ]\n      }\n    ]\n  }\n}\n',
    );
    const r = await run(['install']);
    expect(r.stderr).toContain('memtrace install: warning: hooks.Stop also runs `npx memtrace hook stop`, which memtrace install did not write');
    const u = await run(['uninstall']);
    expect(u.stderr).toContain('left in place: hooks.Stop runs `npx memtrace hook stop`');
    expect(JSON.parse(fs.readFileSync(userFile, 'utf8')).hooks.Stop[0].hooks[0].command).toBe('npx memtrace hook stop');
  });

  it('prints --help for both commands and lists them in the main usage', async () => {
    for (const command of ['install', 'uninstall']) {
      const r = await run([command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`usage: memtrace ${command} [--host claude-code|gemini-cli|codex|opencode|copilot|pi] [--project DIR] [--dry-run]`);
    }
    expect((await run(['--help'])).stdout).toMatch(/install .*\n\s+uninstall /);
  });

  describe('the MCP server', () => {
    const claudeJson = () => path.join(configDir, '.claude.json');
    /** A slice of a real ~/.claude.json: Claude Code's own state beside the user's servers. */
    const CLAUDE_STATE = `${JSON.stringify({ numStartups: 12, hasCompletedOnboarding: true, mcpServers: { github: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: {} } }, projects: { '/work/app': { allowedTools: [] } } }, null, 2)}\n`;

    it('registers "memtrace" in $CLAUDE_CONFIG_DIR/.claude.json running the forwarder\'s bridge (falling back to this node), keeping every other server', async () => {
      seed(claudeJson(), CLAUDE_STATE);
      fs.chmodSync(claudeJson(), 0o600);
      const r = await run(['install']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`installed memtrace's MCP server in ${claudeJson()} (added "memtrace").`);
      const config = JSON.parse(fs.readFileSync(claudeJson(), 'utf8'));
      expect(config.mcpServers.memtrace).toEqual({
        type: 'stdio',
        command: 'sh',
        args: [path.join(ROOT, 'bin/memtrace-hook'), 'mcp', process.execPath],
        env: { NODE_EXTRA_CA_CERTS: '' },
      });
      expect(config.mcpServers.github.command).toBe('npx');
      expect(config.numStartups).toBe(12);
      expect(fs.statSync(claudeJson()).mode & 0o777).toBe(0o600);
      expect(files(configDir).filter((f) => f.startsWith('.claude.json.memtrace-backup-'))).toHaveLength(1);

      const again = await run(['install']);
      expect(again.stdout).toContain(`memtrace's MCP server is already in ${claudeJson()}; nothing changed.`);
      const removed = await run(['uninstall']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`uninstalled memtrace's MCP server in ${claudeJson()} (removed "memtrace").`);
      expect(fs.readFileSync(claudeJson(), 'utf8')).toBe(CLAUDE_STATE);
    });

    it('replaces the Node server an older install registered with the bridge, in place', async () => {
      const older = { type: 'stdio', command: '/usr/local/bin/node', args: ['/opt/memtrace/bin/memtrace.cjs', 'mcp'], env: {} };
      seed(claudeJson(), `${JSON.stringify({ mcpServers: { memtrace: older, github: { command: 'npx', args: [] } } }, null, 2)}\n`);
      const r = await run(['install']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`installed memtrace's MCP server in ${claudeJson()} (updated "memtrace").`);
      const config = JSON.parse(fs.readFileSync(claudeJson(), 'utf8'));
      expect(Object.keys(config.mcpServers)).toEqual(['memtrace', 'github']);
      expect(config.mcpServers.memtrace.args).toEqual([path.join(ROOT, 'bin/memtrace-hook'), 'mcp', process.execPath]);
    });

    it('creates ~/.claude.json (0600) when there is none, and uninstall leaves no memtrace entry', async () => {
      const r = await run(['install'], {});
      expect(r.code, r.stderr).toBe(0);
      const file = path.join(home, '.claude.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(isMemtraceMcpEntry(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.memtrace)).toBe(true);
      expect((await run(['uninstall'], {})).code).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe('{}\n');
    });

    it('--project writes DIR/.mcp.json and says the one step Claude Code asks of the user', async () => {
      const project = path.join(temp.dir, 'app');
      fs.mkdirSync(project);
      const r = await run(['install', '--project', 'app']);
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'));
      expect(Object.keys(config.mcpServers)).toEqual(['memtrace']);
      expect(r.stdout).toContain('approve: Claude Code may ask once before it starts a project\'s MCP servers; accept "memtrace" when it asks');
      expect(fs.existsSync(path.join(project, '.claude', 'settings.local.json'))).toBe(false);
      expect((await run(['uninstall', '--project', 'app'])).code).toBe(0);
      expect(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).toBe('{}\n');
    });

    it('leaves a "memtrace" server it did not write alone, with a warning, on install and uninstall', async () => {
      const foreign = '{\n  "mcpServers": {\n    "memtrace": {\n      "command": "my-own-memtrace"\n    }\n  }\n}\n';
      seed(claudeJson(), foreign);
      const r = await run(['install']);
      expect(r.stderr).toContain('an MCP server named "memtrace" that memtrace install did not write is configured here; it was left as it is');
      expect(fs.readFileSync(claudeJson(), 'utf8')).toBe(foreign);
      expect((await run(['uninstall'])).stderr).toContain('left in place: the MCP server "memtrace" here was not written by memtrace install');
      expect(fs.readFileSync(claudeJson(), 'utf8')).toBe(foreign);
    });

    it('changes neither file when one of them cannot be read', async () => {
      seed(userFile, fixture('user-settings.json'));
      seed(claudeJson(), '{"mcpServers": [}');
      const r = await run(['install']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${claudeJson()} is not valid JSON`);
      expect(fs.readFileSync(userFile).equals(fixture('user-settings.json'))).toBe(true);
      seed(claudeJson(), '{"mcpServers": "oops"}');
      expect((await run(['install'])).stderr).toContain('"mcpServers" is not an object');
      expect(fs.readFileSync(userFile).equals(fixture('user-settings.json'))).toBe(true);
    });

    it('--dry-run shows the .claude.json change as a diff and writes nothing', async () => {
      seed(claudeJson(), CLAUDE_STATE);
      const dry = await run(['install', '--dry-run']);
      expect(dry.stdout).toContain(`dry run: would change ${claudeJson()} (added "memtrace"); nothing written.`);
      expect(dry.stdout).toMatch(/^\+ {6}"args": \[$/m);
      expect(fs.readFileSync(claudeJson(), 'utf8')).toBe(CLAUDE_STATE);
    });
  });
});
