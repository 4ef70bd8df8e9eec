/**
 * Issue 22, cold start: with no worker running, every hook after SessionStart fell back to a
 * Node hook in the foreground (about 170 ms each, Stop and SessionEnd on the agent's path). The
 * perl forwarder now hands the event to the Node hook detached, in a session of its own: the
 * agent waits only for the forwarder, a host that ends the hook's process group on exit does not
 * take the event with it, and the spool keeps the events in the order they were fired.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool } from '../../src/data-dir/index.js';
import { noProvider } from '../../src/providers/index.js';
import { hookCommand } from '../support/hook-process.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const fixture = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-read.json', 'utf8')) as Record<string, unknown>;

/**
 * Runs the forwarder as its own process group, as a host runs a hook, and kills the whole group
 * the moment the forwarder has exited: whatever it left running in that group dies with it.
 */
function fireAndKillGroup(input: string, env: Record<string, string>): Promise<number | null> {
  const [file, ...args] = hookCommand('forwarder', 'claude-code', 'post-tool-use');
  const child = spawn(file!, args, { env: { PATH: process.env.PATH ?? '', ...env }, detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(input);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is already empty
      }
      resolve(code);
    }),
  );
}

describe('hooks fired while no worker runs (perl forwarder)', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    temp.cleanup();
  });

  it('are each spooled although the host kills the hook’s process group at once, and replayed in firing order', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    // The spool with no worker is the point: these hooks must not start one (issue 35 lets any hook).
    holdWorkerStarts(dataDir);
    const env = { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir };
    const ids = ['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d', 'toolu_e'];
    for (const id of ids) expect(await fireAndKillGroup(JSON.stringify({ ...fixture, tool_use_id: id }), env)).toBe(0);
    await waitFor(() => listSpool(dataDir).length === ids.length, 30_000);

    h = await startHarness(noProvider(), { dataDir });
    const queued = (h.worker.store.db.prepare('SELECT tool_use_id FROM queue ORDER BY id').all() as Array<{ tool_use_id: string }>).map((r) => r.tool_use_id);
    expect(queued).toEqual(ids);
  });
});
