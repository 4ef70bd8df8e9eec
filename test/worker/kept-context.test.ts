/**
 * A session that starts while no worker runs still gets its memory (issue 22, item 3): the worker
 * keeps, per directory, the context a session starting there got, and the forwarder prints it
 * when nothing answers on the socket.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { hookCommand, runHookProcess, type HookPath } from '../support/hook-process.js';
import { addObservation } from '../support/memory-fixtures.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('the context kept for a start with no worker', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir = '';
  afterEach(async () => {
    await h?.stop();
    // The cold SessionStart started a worker of its own, detached.
    if (dataDir) await stopStartedWorker(dataDir, 15_000);
    temp?.cleanup();
  });

  it.each<HookPath>(['forwarder', 'forwarder-curl'])(
    'is what the last session starting in that directory got, printed by the forwarder once the worker is gone (%s)',
    async (via) => {
      temp = makeTempDir();
      const project = path.join(temp.dir, 'shop');
      fs.mkdirSync(project);
      dataDir = path.join(temp.dir, 'data');
      h = await startHarness(noProvider(), { dataDir });
      addObservation(h.worker.store, { project, title: 'Checkout rounds totals half-even', createdAt: Date.now() });
      const env = { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir };
      const start = (sessionId: string) =>
        runHookProcess(
          hookCommand(via, 'claude-code', 'session-start'),
          Buffer.from(
            JSON.stringify({
              session_id: sessionId,
              cwd: project,
              transcript_path: path.join(temp.dir, `${sessionId}.jsonl`),
              hook_event_name: 'SessionStart',
              source: 'startup',
            }),
          ),
          { env, cwd: project },
        );

      const live = await start('s-live');
      expect(live.code).toBe(0);
      expect(live.stdout).toContain('Checkout rounds totals half-even');
      const kept = path.join(dataDir, 'context', project, 'session-start.json');
      await waitFor(() => fs.existsSync(kept), 10_000);
      expect(fs.statSync(kept).mode & 0o777).toBe(0o600);

      await h.stop();
      h = undefined;
      const cold = await start('s-cold');
      expect(cold.code).toBe(0);
      expect(JSON.parse(cold.stdout)).toEqual(JSON.parse(live.stdout));
    },
  );

  it.each<HookPath>(['forwarder', 'forwarder-curl', 'node'])(
    'is kept in Copilot’s own JSON beside the other hosts’ (neither host gets the other’s), and printed in it with no worker (%s)',
    async (via) => {
      temp = makeTempDir();
      const project = path.join(temp.dir, 'shop');
      fs.mkdirSync(project);
      dataDir = path.join(temp.dir, 'data');
      h = await startHarness(noProvider(), { dataDir });
      addObservation(h.worker.store, { project, title: 'Checkout rounds totals half-even', createdAt: Date.now() });
      const env = { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir };
      const copilotStart = (sessionId: string) =>
        runHookProcess(
          hookCommand(via, 'copilot', 'sessionStart'),
          Buffer.from(JSON.stringify({ sessionId, timestamp: Date.now(), cwd: project, source: 'new', initialPrompt: 'go' })),
          { env, cwd: project },
        );
      const claudeStart = (sessionId: string) =>
        runHookProcess(
          hookCommand(via, 'claude-code', 'session-start'),
          Buffer.from(JSON.stringify({ session_id: sessionId, cwd: project, hook_event_name: 'SessionStart', source: 'startup' })),
          { env, cwd: project },
        );

      const live = await copilotStart('0b1c2d3e-0000-4000-8000-000000000001');
      expect(live.code).toBe(0);
      expect(JSON.parse(live.stdout)).toEqual({ additionalContext: expect.stringContaining('Checkout rounds totals half-even') });
      const liveClaude = await claudeStart('s-claude');
      expect(JSON.parse(liveClaude.stdout).hookSpecificOutput.additionalContext).toContain('Checkout rounds totals half-even');
      const keptCopilot = path.join(dataDir, 'context', project, 'session-start.copilot.json');
      const keptShared = path.join(dataDir, 'context', project, 'session-start.json');
      await waitFor(() => fs.existsSync(keptCopilot) && fs.existsSync(keptShared), 10_000);
      expect(fs.statSync(keptCopilot).mode & 0o777).toBe(0o600);

      await h.stop();
      h = undefined;
      const cold = await copilotStart('0b1c2d3e-0000-4000-8000-000000000002');
      expect(cold.code).toBe(0);
      expect(JSON.parse(cold.stdout)).toEqual(JSON.parse(live.stdout));
      const coldClaude = await claudeStart('s-claude-cold');
      expect(JSON.parse(coldClaude.stdout)).toEqual(JSON.parse(liveClaude.stdout));
    },
  );
});
