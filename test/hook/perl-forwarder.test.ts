/**
 * What only the Perl path of the shell forwarder does: hand over to curl when its Perl half is
 * missing, and say so when the node install wrote has gone. What it shares with the native
 * forwarder (streaming, answers, long socket paths, a wedged worker) is in socket-forwarders.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirServers, type Answer } from '../support/data-dir-http-server.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the forwarder on a machine with perl', () => {
  let temp: ReturnType<typeof makeTempDir>;
  const servers = new DataDirServers();
  afterEach(async () => {
    await servers.close();
    temp.cleanup();
  });
  const listen = (dataDir: string, answer: Answer) => servers.listen(dataDir, answer);

  it('falls back to curl when the Perl half is missing beside the shell forwarder', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200).end('{"ok":1}'));
    const lone = path.join(temp.dir, 'bin', 'memtrace-hook');
    fs.mkdirSync(path.dirname(lone));
    fs.copyFileSync(hookCommand('forwarder', 'claude-code', 'stop')[1]!, lone);
    const r = await runHookProcess(['sh', lone, 'claude-code', 'stop', 'settings', process.execPath], Buffer.from('{"session_id":"s"}'), {
      env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
    });
    expect(r).toMatchObject({ code: 0, stdout: '{"ok":1}' });
    expect(seen.map((s) => s.body.toString())).toEqual(['{"session_id":"s"}']);
  });

  it('says so on stderr when no worker runs and the installed node is gone, and exits 0', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const [sh, forwarder, host, event, via] = hookCommand('forwarder', 'claude-code', 'stop');
    const r = await runHookProcess([sh!, forwarder!, host!, event!, via!, path.join(temp.dir, 'moved', 'node')], Buffer.from('{"session_id":"s"}'), {
      env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("this stop event was not kept; run 'memtrace install' again");
  });
});
