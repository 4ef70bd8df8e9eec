/**
 * The hook command `memtrace install` writes: the host's shell execs the data dir's native build
 * itself (`--direct`), with no script between; that build checks what the script would have, and
 * everything it should not carry goes to the script (here a stand-in that says how it was called
 * and how much of stdin it got). Against a plain HTTP server on the data dir's socket. What the
 * native forwarder sends is in socket-forwarders.test.ts; the regression tests run this command
 * against the worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forwarderCommand } from '../../src/install/hook-definitions.js';
import { settingsForwarder } from '../../src/install/package-root.js';
import { DataDirServers, type SeenRequest } from '../support/data-dir-http-server.js';
import { runHookProcess } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';

const EVENT = Buffer.from(JSON.stringify({ session_id: 's', hook_event_name: 'PostToolUse', tool_response: 'x'.repeat(100_000) }));
const NODE = process.execPath;

describe.each([
  ['sh', ['sh', '-c']],
  ['bash (Gemini CLI, Codex)', ['bash', '-c']],
  ['bash --norc --noprofile (Copilot CLI)', ['/bin/bash', '--norc', '--noprofile', '-c']],
])('the installed hook command under %s', (_shell, shell) => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  let packageRoot: string;
  let seen: SeenRequest[];
  const servers = new DataDirServers();

  beforeEach(async () => {
    temp = makeTempDir('memtrace-direct-hook-');
    dataDir = path.join(temp.dir, 'data dir');
    packageRoot = path.join(temp.dir, 'package');
    // The package's script, standing in: how it was called, and the bytes of stdin it was left.
    fs.mkdirSync(path.join(packageRoot, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(packageRoot, 'bin', 'memtrace-hook'), 'echo "script: $*"; wc -c\n');
    seen = await servers.listen(dataDir, (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"continue":true}'));
    buildNativeForwarderInto(dataDir);
  });
  afterEach(async () => {
    await servers.close();
    temp.cleanup();
  });

  const command = () => forwarderCommand(settingsForwarder(NODE, packageRoot, dataDir), 'claude-code', 'post-tool-use', 'settings');
  const run = (env: Record<string, string>) => runHookProcess([...shell, command()], EVENT, { env: { HOME: temp.dir, ...env } });
  const scriptRan = (args: string) => ({ code: 0, stdout: `script: ${args}\n${EVENT.length}\n` });

  it('carries the event to the worker of the data dir it names, with no script', async () => {
    const r = await run({ MEMTRACE_DATA_DIR: dataDir });
    expect(r).toMatchObject({ code: 0, stdout: '{"continue":true}', stderr: '' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hook/claude-code/post-tool-use' });
    expect(seen[0]!.headers['x-memtrace-bin']).toBe(path.join(packageRoot, 'bin'));
    expect(seen[0]!.body.equals(EVENT)).toBe(true);
  });

  it('carries it when the environment names the same data dir by another path (a link, a trailing slash)', async () => {
    const link = path.join(temp.dir, 'link');
    fs.symlinkSync(dataDir, link);
    expect((await run({ MEMTRACE_DATA_DIR: link })).stdout).toBe('{"continue":true}');
    expect((await run({ MEMTRACE_DATA_DIR: `${dataDir}/` })).stdout).toBe('{"continue":true}');
    expect(seen).toHaveLength(2);
  });

  it('finds the default data dir, ~/.memtrace, as the script does', async () => {
    const home = path.join(temp.dir, 'home');
    fs.mkdirSync(home);
    fs.symlinkSync(dataDir, path.join(home, '.memtrace'));
    expect((await run({ HOME: home })).stdout).toBe('{"continue":true}');
    expect((await run({ HOME: home, MEMTRACE_DATA_DIR: '~/.memtrace' })).stdout).toBe('{"continue":true}');
    expect(seen).toHaveLength(2);
  });

  it('hands the event to the script, stdin unread, when the environment names another data dir', async () => {
    const other = path.join(temp.dir, 'other');
    fs.mkdirSync(other, { mode: 0o700 });
    expect(await run({ MEMTRACE_DATA_DIR: other })).toMatchObject(scriptRan(`claude-code post-tool-use settings ${NODE}`));
    // Unset, it means ~/.memtrace: not this one either.
    expect(await run({})).toMatchObject(scriptRan(`claude-code post-tool-use settings ${NODE}`));
    expect(seen).toEqual([]);
  });

  it('goes on as the script would after the native forwarder when no worker listens', async () => {
    await servers.close();
    expect(await run({ MEMTRACE_DATA_DIR: dataDir })).toMatchObject(scriptRan(`after-native claude-code post-tool-use settings ${NODE}`));
  });

  it('runs the script where the data dir has no build (no compiler, a data dir removed) or one that is not ours', async () => {
    const link = path.join(dataDir, 'bin', 'hook');
    const build = fs.readlinkSync(link);
    fs.rmSync(link);
    expect(await run({ MEMTRACE_DATA_DIR: dataDir })).toMatchObject(scriptRan(`claude-code post-tool-use settings ${NODE}`));
    fs.symlinkSync(build, link);
    fs.chownSync(path.join(dataDir, 'bin', build), 65534, 65534);
    expect(await run({ MEMTRACE_DATA_DIR: dataDir })).toMatchObject(scriptRan(`claude-code post-tool-use settings ${NODE}`));
    expect(seen).toEqual([]);
  });

  it("does nothing in the observer's own session: nothing sent, no script", async () => {
    expect(await run({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_OBSERVER_SESSION: '1' })).toMatchObject({ code: 0, stdout: '' });
    expect(seen).toEqual([]);
  });
});
