import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { openStore } from '../../../src/store/index.js';
import { captureIO } from '../../support/cli-io.js';
import { startChildWorker, type ChildWorker } from '../../support/child-worker.js';
import { makeTempDir } from '../../support/temp-dir.js';

interface Finding {
  check: string;
  status: string;
  detail: string;
  fix: string | null;
}

/** `memtrace doctor --json` in-process, on real files. */
async function doctor(env: Record<string, string>) {
  const out = captureIO({ env, cwd: env.HOME });
  const code = await main(['doctor', '--json'], out.io);
  const findings = (JSON.parse(out.stdout()) as { findings: Finding[] }).findings;
  return { code, findings, stderr: out.stderr(), byCheck: (check: string) => findings.find((f) => f.check === check) };
}

describe('memtrace doctor', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    temp?.cleanup();
  });

  const setUp = () => {
    temp = makeTempDir();
    const home = path.join(temp.dir, 'home');
    const bin = path.join(temp.dir, 'bin');
    fs.mkdirSync(home);
    fs.mkdirSync(bin);
    const dataDir = path.join(temp.dir, 'data');
    return { home, dataDir, env: { HOME: home, PATH: `${bin}:/usr/bin:/bin`, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' } };
  };

  it('reports a hand-edited hooks file, a deleted forwarder, a store from the future and a waiting spool as findings, never a crash; exit 1', async () => {
    const { home, dataDir, env } = setUp();
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{\n  "hooks": {\n    "Stop": [ { "hooks": [ ]\n');
    fs.mkdirSync(path.join(home, '.codex'));
    const gone = path.join(temp!.dir, 'old-install', 'bin', 'memtrace-hook');
    fs.writeFileSync(
      path.join(home, '.codex', 'hooks.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `sh ${gone} codex SessionStart settings /usr/bin/node` }] }] } }),
    );
    openStore(path.join(dataDir, 'memtrace.db')).close();
    const db = new Database(path.join(dataDir, 'memtrace.db'));
    db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_from_the_future', 0)").run();
    db.prepare("UPDATE store_meta SET value = '9.9.9' WHERE key = 'written_by'").run();
    db.close();
    const before = fs.readFileSync(path.join(dataDir, 'memtrace.db'));
    fs.mkdirSync(path.join(dataDir, 'spool', 'events'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'spool', 'events', `${String(Date.now() - 600_000).padStart(15, '0')}-0000001-abc.json`), '{}');

    const { code, byCheck, stderr } = await doctor(env);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(byCheck('hooks:claude-code')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/settings\.json is not valid JSON \(line \d+, column \d+/),
      fix: 'fix the file by hand (or move it aside), then memtrace install --host claude-code',
    });
    expect(byCheck('hooks:codex')).toEqual({
      check: 'hooks:codex',
      status: 'fail',
      detail: `${path.join(home, '.codex', 'hooks.json')}: hooks run ${gone}, which does not exist (memtrace moved or was removed)`,
      fix: 'memtrace install --host codex',
    });
    expect(byCheck('store')).toMatchObject({ status: 'fail', detail: expect.stringContaining('written by a newer memtrace (9.9.9)') });
    expect(byCheck('versions')).toMatchObject({ status: 'fail', detail: expect.stringContaining('store 9.9.9') });
    expect(byCheck('spool')).toMatchObject({ status: 'warn', detail: '1 hook event(s) wait in the spool for a worker, the oldest 10 min old' });
    expect(byCheck('worker')).toMatchObject({ status: 'warn', fix: expect.stringContaining('memtrace worker start') });
    // Read only: the newer store is left byte for byte as it was.
    expect(fs.readFileSync(path.join(dataDir, 'memtrace.db')).equals(before)).toBe(true);
  });

  it('reads the plugin OpenCode loads and the extension pi loads: memtrace’s as installed, one that is not memtrace’s, one whose memtrace is gone', async () => {
    const { home, env } = setUp();
    const plugin = path.join(home, '.config', 'opencode', 'plugins', 'memtrace.js');
    const extension = path.join(home, '.pi', 'agent', 'extensions', 'memtrace.js');
    const absent = await doctor(env);
    expect(absent.byCheck('hooks:opencode')).toMatchObject({ status: 'ok', detail: `no plugin in ${plugin}; opencode is not on PATH` });
    expect(absent.byCheck('hooks:pi')).toMatchObject({ status: 'ok', detail: `no extension in ${extension}; pi is not on PATH` });

    const install = captureIO({ env, cwd: home });
    expect(await main(['install', '--host', 'opencode'], install.io), install.stderr()).toBe(0);
    fs.mkdirSync(path.dirname(extension), { recursive: true });
    fs.writeFileSync(extension, 'module.exports = function mine(pi) {};\n');
    const installed = await doctor(env);
    expect(installed.byCheck('hooks:opencode')).toMatchObject({ status: 'ok', detail: expect.stringContaining(`memtrace's plugin in ${plugin} (memtrace `) });
    expect(installed.byCheck('hooks:pi')).toMatchObject({
      status: 'warn',
      detail: `${extension} is an extension memtrace install did not write: memtrace's is not installed`,
    });

    const gone = path.join(temp!.dir, 'old-install', 'bin', 'memtrace.cjs');
    const text = fs.readFileSync(plugin, 'utf8');
    fs.writeFileSync(plugin, text.replace(/"memtraceBin":"[^"]*"/, `"memtraceBin":${JSON.stringify(gone)}`));
    const moved = await doctor(env);
    expect(moved.code).toBe(1);
    expect(moved.byCheck('hooks:opencode')).toEqual({
      check: 'hooks:opencode',
      status: 'fail',
      detail: `${plugin}: the plugin spools through ${gone}, which does not exist (memtrace moved or was removed): with no worker, events are lost`,
      fix: 'memtrace install --host opencode',
    });
    fs.writeFileSync(plugin, text.replace(/^const MEMTRACE_SETTINGS = .*$/m, 'const MEMTRACE_SETTINGS = {"memtraceBin":'));
    expect((await doctor(env)).byCheck('hooks:opencode')).toMatchObject({ status: 'fail', detail: expect.stringContaining('its settings line is not whole') });
  });

  it('fails a file that is not a database, and prints each fix under its finding', async () => {
    const { dataDir, env } = setUp();
    fs.mkdirSync(dataDir, { mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, 'memtrace.db'), 'this is not a database, just some bytes '.repeat(200));
    const { code, byCheck } = await doctor(env);
    expect(code).toBe(1);
    expect(byCheck('store')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not a database'),
      fix: expect.stringContaining('move DATA_DIR/memtrace.db'),
    });
    const text = captureIO({ env, cwd: env.HOME });
    expect(await main(['doctor'], text.io)).toBe(1);
    expect(text.stdout()).toMatch(/^FAIL {2}store {13}memtrace\.db cannot be opened: .*\n {24}fix: stop the worker/m);
    expect(text.stdout()).toContain('check(s) failed');
  });

  it('finds a running worker, its socket and its store healthy (exit 0), and names a key the worker never saw', async () => {
    const { env } = setUp();
    worker = await startChildWorker({ ...env, MEMTRACE_PROVIDER: 'none' });
    const { code, byCheck, findings } = await doctor({ ...env, OPENAI_API_KEY: 'sk-later' });
    expect(findings.filter((f) => f.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    expect(byCheck('worker')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^running \(pid \d+, port \d+\)/) });
    expect(byCheck('socket')).toMatchObject({ status: 'ok' });
    expect(byCheck('versions')).toMatchObject({ status: 'ok' });
    expect(byCheck('store')).toMatchObject({ status: 'ok', detail: expect.stringContaining('passes PRAGMA quick_check') });
    expect(byCheck('observer_env')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('OPENAI_API_KEY is set here but not in the running worker'),
    });
    expect(JSON.stringify(findings)).not.toContain('sk-later');
  });

  it('reports a variable the worker would refuse as a failed finding, and still checks the rest', async () => {
    const { env } = setUp();
    const { code, byCheck, findings } = await doctor({ ...env, MEMTRACE_PORT: 'not-a-port' });
    expect(code).toBe(1);
    expect(byCheck('config')).toMatchObject({ status: 'fail', detail: expect.stringContaining('MEMTRACE_PORT') });
    expect(byCheck('store')).toMatchObject({ status: 'ok' });
    expect(findings.length).toBeGreaterThan(10);
  });

  it('checks Copilot CLI’s hooks where install writes them ($COPILOT_HOME/hooks/memtrace.json, else ~/.copilot): missing, complete, edited, or running a forwarder that is gone', async () => {
    const { home, env } = setUp();
    fs.writeFileSync(path.join(temp!.dir, 'bin', 'copilot'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect((await doctor(env)).byCheck('hooks:copilot')).toEqual({
      check: 'hooks:copilot',
      status: 'warn',
      detail: `copilot is on PATH but memtrace's hooks are not in ${path.join(home, '.copilot', 'hooks', 'memtrace.json')}: its sessions are not remembered`,
      fix: 'memtrace install --host copilot',
    });

    const copilotHome = path.join(temp!.dir, 'copilot-home');
    const withHome = { ...env, COPILOT_HOME: copilotHome };
    const install = captureIO({ env: withHome, cwd: home });
    expect(await main(['install', '--host', 'copilot'], install.io), install.stderr()).toBe(0);
    const hooksFile = path.join(copilotHome, 'hooks', 'memtrace.json');
    expect(fs.existsSync(path.join(home, '.copilot'))).toBe(false);
    const forwarder = path.resolve(import.meta.dirname, '../../../bin/memtrace-hook');
    expect((await doctor(withHome)).byCheck('hooks:copilot')).toMatchObject({ status: 'ok', detail: `6 hooks in ${hooksFile}, running ${forwarder}` });

    // One hook removed by hand.
    const installed = JSON.parse(fs.readFileSync(hooksFile, 'utf8')) as { hooks: Record<string, Array<{ bash: string }>> };
    const { agentStop: _removed, ...fewer } = installed.hooks;
    fs.writeFileSync(hooksFile, JSON.stringify({ ...installed, hooks: fewer }));
    expect((await doctor(withHome)).byCheck('hooks:copilot')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(`${hooksFile}: 5 of memtrace's 6 hooks`),
      fix: 'memtrace install --host copilot',
    });

    // An install from a folder since removed: every hook runs a forwarder that is not there.
    const gone = path.join(temp!.dir, 'old-install', 'bin', 'memtrace-hook');
    fs.writeFileSync(hooksFile, fs.readFileSync(hooksFile, 'utf8').split(forwarder).join(gone));
    const { code, byCheck } = await doctor(withHome);
    expect(code).toBe(1);
    expect(byCheck('hooks:copilot')).toEqual({
      check: 'hooks:copilot',
      status: 'fail',
      detail: `${hooksFile}: hooks run ${gone}, which does not exist (memtrace moved or was removed)`,
      fix: 'memtrace install --host copilot',
    });
  });

  it('has --help, and a wrong flag is a usage error', async () => {
    const help = captureIO();
    expect(await main(['doctor', '--help'], help.io)).toBe(0);
    expect(help.stdout()).toContain('usage: memtrace doctor [--json]');
    const wrong = captureIO();
    expect(await main(['doctor', '--jsn'], wrong.io)).toBe(2);
  });
});
