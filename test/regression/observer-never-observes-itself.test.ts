import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool } from '../../src/data-dir/index.js';
import { createStoreMiningStore } from '../../src/mining/mining-store.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { openStore } from '../../src/store/index.js';
import { isObserverScratch } from '../../src/data-dir/index.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Running the agent's own CLI as the observer must never feed the observer: its session would be
 * captured, observed by another CLI call, captured again… Every door is shut: the hooks do nothing
 * under MEMTRACE_OBSERVER_SESSION, the worker ignores events from its scratch dir, mining skips it.
 */
describe('the observer never observes itself', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    temp?.cleanup();
  });

  it.each(['forwarder', 'installed', 'node'] as const)('the %s hook does nothing in the observer’s session: nothing sent, nothing spooled', async (via) => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    // The installed command runs the native build directly: it checks the observer's session itself.
    if (via === 'installed') buildNativeForwarderInto(dataDir);
    const input = Buffer.from(JSON.stringify({ session_id: 'obs', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: 'x' }));
    const run = await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', dataDir), input, {
      env: { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: '1', MEMTRACE_OBSERVER_SESSION: '1' },
    });
    expect(run.code).toBe(0);
    expect(fs.existsSync(dataDir) ? listSpool(dataDir) : []).toEqual([]);
  });

  it('the worker ignores an event whose working directory is its observer scratch dir, from any door', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    const scratch = path.join(h.dataDir, 'observer', 'claude-code');
    expect(isObserverScratch(scratch, h.dataDir)).toBe(true);
    expect(isObserverScratch(`${h.dataDir}/observer-other`, h.dataDir)).toBe(false);
    const res = await h.post('/api/sessions/observations', toolEvent('observer-session', 1, { cwd: scratch }));
    expect(res).toEqual({ status: 200, json: { status: 'ignored' } });
    await h.post('/api/sessions/init', { session_id: 'observer-session', cwd: scratch, prompt: 'x' });
    expect(h.worker.store.sessions.get('observer-session')).toBeNull();
    expect(h.worker.store.queue.depth()).toBe(0);
  });

  it('mining skips a transcript whose session ran in the scratch dir', () => {
    temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    try {
      const scratch = path.join(temp.dir, 'observer', 'claude-code');
      const mining = createStoreMiningStore(store, { projectOf: (cwd) => cwd ?? null, excludedCwd: (cwd) => isObserverScratch(cwd, temp!.dir) });
      const event = {
        segment: 0,
        toolUseId: 'toolu_obs',
        payload: { kind: 'post_tool_use' as const, tool_name: 'Bash', tool_input: {}, tool_response: 'x', cwd: scratch, at: 1 },
      };
      const committed = mining.commit({
        sessionId: 'obs',
        events: [event as never],
        marks: [{ segment: 0, endOffset: 10 }],
        session: { cwd: scratch, prompt: null },
        nowMs: 1,
      });
      expect(committed).toEqual({ queued: 0, duplicate: 0 });
      expect(store.queue.depth()).toBe(0);
      expect(store.sessions.get('obs')).toBeNull();
      expect(
        mining.sessionLevel({
          sessionId: 'obs',
          segments: 1,
          lastAssistantMessage: 'x',
          transcriptPath: '/t.jsonl',
          session: { cwd: scratch, prompt: null },
          nowMs: 2,
        }),
      ).toBe('not_due');
    } finally {
      store.close();
    }
  });
});
