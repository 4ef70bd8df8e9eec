import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BACKUP = /\.memtrace-backup-\d{8}T\d{6}Z(-\d+)?$/;
/** A user's own OpenCode config: a provider, another MCP server, 4-space indent. */
const OPENCODE_USER = `${JSON.stringify({ model: 'anthropic/claude-sonnet-4-5', mcp: { docs: { type: 'remote', url: 'https://docs.example/mcp' } }, theme: 'tokyonight' }, null, 4)}\n`;

describe('memtrace install / uninstall --host opencode|pi', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let home: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-inproc-install-');
    home = path.join(temp.dir, 'home');
    fs.mkdirSync(home);
  });
  afterEach(() => temp.cleanup());

  const run = async (args: string[], env: Record<string, string> = {}) => {
    const c = captureIO({ env: { HOME: home, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), PATH: '/nonexistent', ...env }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, out: c.stdout(), err: c.stderr() };
  };
  const configDir = () => path.join(home, '.config', 'opencode');
  const pluginFile = () => path.join(configDir(), 'plugins', 'memtrace.js');
  const backups = (dir: string) => fs.readdirSync(dir).filter((n) => BACKUP.test(n));

  it('writes OpenCode’s plugin (one file that imports nothing) and the MCP server into the user’s opencode.json, keeping everything else; says the next step', async () => {
    fs.mkdirSync(configDir(), { recursive: true });
    fs.writeFileSync(path.join(configDir(), 'opencode.json'), OPENCODE_USER);
    const { code, out, err } = await run(['install', '--host', 'opencode']);
    expect(code, err).toBe(0);
    expect(out).toContain(`installed memtrace's plugin and MCP server in ${pluginFile()} (added plugin)`);
    expect(out).toContain('(added mcp.memtrace)');
    expect(out).toMatch(/^next: start OpenCode/m);
    expect(out).toMatch(/^observer: /m);

    const plugin = fs.readFileSync(pluginFile(), 'utf8');
    expect(plugin).not.toMatch(/^\s*import\s|\bimport\(|require\(['"]/m);
    expect(plugin).toContain(JSON.stringify(path.join(temp.dir, 'data')));
    const config = JSON.parse(fs.readFileSync(path.join(configDir(), 'opencode.json'), 'utf8'));
    expect(config).toMatchObject({ model: 'anthropic/claude-sonnet-4-5', theme: 'tokyonight', mcp: { docs: { type: 'remote' } } });
    expect(config.mcp.memtrace).toEqual({
      type: 'local',
      command: ['sh', path.join(ROOT, 'bin/memtrace-hook'), 'mcp', process.execPath],
      environment: { NODE_EXTRA_CA_CERTS: '', MEMTRACE_DATA_DIR: path.join(temp.dir, 'data') },
      enabled: true,
    });
    expect(fs.readFileSync(path.join(configDir(), 'opencode.json'), 'utf8')).toMatch(/^ {4}"model"/m);
    expect(backups(configDir())).toHaveLength(1);

    // The file is a module OpenCode can load: one plugin function, exported.
    const copy = path.join(temp.dir, 'plugin.mjs');
    fs.copyFileSync(pluginFile(), copy);
    const loaded = await import(pathToFileURL(copy).href);
    expect(Object.keys(loaded)).toEqual(['MemtracePlugin']);
    expect(typeof loaded.MemtracePlugin).toBe('function');
  });

  it('is idempotent, shows a dry run as a diff, and uninstall removes exactly what it wrote (with backups)', async () => {
    expect((await run(['install', '--host', 'opencode'])).code).toBe(0);
    const again = await run(['install', '--host', 'opencode']);
    expect(again.out).toMatch(/already in OpenCode's config .*nothing changed/);
    const dry = await run(['uninstall', '--host', 'opencode', '--dry-run']);
    expect(dry.out).toContain(`dry run: would remove ${pluginFile()} (removed plugin)`);
    expect(dry.out).toContain('-  "mcp": {');
    expect(fs.existsSync(pluginFile())).toBe(true);

    const removed = await run(['uninstall', '--host', 'opencode']);
    expect(removed.code, removed.err).toBe(0);
    expect(fs.existsSync(pluginFile())).toBe(false);
    expect(backups(path.join(configDir(), 'plugins'))).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(configDir(), 'opencode.json'), 'utf8'))).toEqual({});
    expect((await run(['uninstall', '--host', 'opencode'])).out).toMatch(/nothing written by memtrace install .*nothing changed/);
  });

  it('leaves a plugin named memtrace.js that it did not write, and a malformed opencode.json, untouched: nothing is written', async () => {
    fs.mkdirSync(path.join(configDir(), 'plugins'), { recursive: true });
    fs.writeFileSync(pluginFile(), 'export const Mine = async () => ({});\n');
    const foreign = await run(['install', '--host', 'opencode']);
    expect(foreign.code).toBe(1);
    expect(foreign.err).toContain(`${pluginFile()} is a plugin memtrace install did not write`);
    expect(fs.existsSync(path.join(configDir(), 'opencode.json'))).toBe(false);
    expect((await run(['uninstall', '--host', 'opencode'])).err).toContain('left in place: this plugin was not written by memtrace install');
    expect(fs.readFileSync(pluginFile(), 'utf8')).toBe('export const Mine = async () => ({});\n');

    fs.rmSync(pluginFile());
    fs.writeFileSync(path.join(configDir(), 'opencode.json'), '{ "model": "x", }\n');
    const malformed = await run(['install', '--host', 'opencode']);
    expect(malformed.code).toBe(1);
    expect(malformed.err).toMatch(/opencode\.json is not valid JSON: line 1, column \d+/);
    expect(fs.existsSync(pluginFile())).toBe(false);
  });

  it('edits opencode.jsonc when that is the user’s file, and with --project writes the project’s .opencode/plugins and opencode.json', async () => {
    fs.mkdirSync(configDir(), { recursive: true });
    fs.writeFileSync(path.join(configDir(), 'opencode.jsonc'), '{"theme": "x"}\n');
    expect((await run(['install', '--host', 'opencode'])).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(configDir(), 'opencode.jsonc'), 'utf8')).mcp.memtrace.type).toBe('local');
    expect(fs.existsSync(path.join(configDir(), 'opencode.json'))).toBe(false);

    const project = path.join(temp.dir, 'shop');
    fs.mkdirSync(project);
    const { code, out } = await run(['install', '--host', 'opencode', '--project', project]);
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(project, '.opencode', 'plugins', 'memtrace.js'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(project, 'opencode.json'), 'utf8')).mcp.memtrace.enabled).toBe(true);
    expect(out).toContain(
      `OpenCode first installs its plugin package (@opencode-ai/plugin) into ${configDir()} and ${project}/.opencode and waits for it: this needs the network once`,
    );
    // Once it is there (OpenCode installed it), nothing more to say.
    for (const dir of [configDir(), path.join(project, '.opencode')]) {
      fs.mkdirSync(path.join(dir, 'node_modules', '@opencode-ai', 'plugin'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'node_modules', '@opencode-ai', 'plugin', 'package.json'), '{}');
    }
    expect((await run(['install', '--host', 'opencode', '--project', project])).out).not.toContain('note:');
  });

  it('writes pi’s extension with memtrace’s memory tools as the MCP server lists them, where PI_CODING_AGENT_DIR says, and removes it', async () => {
    const agentDir = path.join(temp.dir, 'pi-agent');
    const file = path.join(agentDir, 'extensions', 'memtrace.js');
    const { code, out, err } = await run(['install', '--host', 'pi'], { PI_CODING_AGENT_DIR: agentDir });
    expect(code, err).toBe(0);
    expect(out).toContain(`installed memtrace's extension (with its memory tools) in ${file} (added extension)`);
    expect(out).toMatch(/^next: start pi; .*memtrace_search/m);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toMatch(/^\s*import\s|\bimport\(|require\(['"]/m);
    expect(text).toMatch(/^module\.exports = function memtrace\(pi\)/m);
    // pi loads it with jiti, as it is: CommonJS, so jiti evaluates it without compiling it first.
    const { createJiti } = await import('jiti');
    const loaded = await createJiti(import.meta.url, { moduleCache: false, fsCache: false }).import(file, { default: true });
    expect(typeof loaded).toBe('function');
    const tools = JSON.parse(/^const MEMTRACE_TOOLS = (.*);$/m.exec(text)![1]!) as Array<{ name: string; inputSchema: { required?: string[] } }>;
    expect(tools.map((t) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
    expect(tools[0]!.inputSchema.required).toEqual(['query']);
    expect((await run(['install', '--host', 'pi'], { PI_CODING_AGENT_DIR: agentDir })).out).toMatch(/nothing changed/);
    expect((await run(['uninstall', '--host', 'pi'], { PI_CODING_AGENT_DIR: agentDir })).code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);

    const project = path.join(temp.dir, 'shop');
    fs.mkdirSync(project);
    expect((await run(['install', '--host', 'pi', '--project', project])).code).toBe(0);
    expect(fs.existsSync(path.join(project, '.pi', 'extensions', 'memtrace.js'))).toBe(true);
  });

  it('refuses an unknown host in one line with the list', async () => {
    const { code, err } = await run(['install', '--host', 'cursor']);
    expect(code).toBe(2);
    expect(err).toContain("--host takes claude-code, gemini-cli, codex, opencode, copilot or pi, got 'cursor'");
  });
});
