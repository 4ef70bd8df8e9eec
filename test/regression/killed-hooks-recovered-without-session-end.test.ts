/**
 * Issue 17, item 11: in `-p` mode Claude Code kills background hooks at exit and then may skip
 * SessionEnd, so the session-end transcript catch-up never ran and tool events were lost. Now the
 * worker watches every transcript a hook reported (SessionStart always is: it runs in the
 * foreground) and, once it goes quiet, mines it: every tool call ends up stored, once, with no
 * SessionEnd, no Stop and no tool hook at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/**
 * No provider (a user without an API key): events stay queued, where the test can see them. A
 * refusing provider would race the miner, which rightly backs off from a session whose observer
 * calls are failing (docs/mining.md) and made this test fail whenever the observer was first.
 */

describe('a session whose tool hooks were killed and that never sent SessionEnd', () => {
  let h: Harness;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    temp?.cleanup();
  });

  it('has every tool call recovered from its transcript once it goes quiet, and each stored once', async () => {
    temp = makeTempDir();
    h = await startHarness(noProvider(), { watch: { dirs: [], intervalMs: 100, idleMs: 300, firstPassDelayMs: 50, catchUpDelayMs: 3_600_000 } });
    const t = new TranscriptBuilder();
    t.prompt('refactor the parser');
    const delivered = t.call('Read', { file_path: '/work/app/src/parse.ts' });
    const lost = [t.call('Edit', { file_path: '/work/app/src/parse.ts', old_string: 'a', new_string: 'b' }), t.call('Bash', { command: 'npm test' })];
    t.text('Refactored.');
    const transcript = path.join(temp.dir, `${t.sessionId}.jsonl`);
    t.writeTo(transcript);

    const env = { MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir, MEMTRACE_HOOK_TIMEOUT_MS: '60000' };
    const base = { session_id: t.sessionId, transcript_path: transcript, cwd: '/work/app' };
    // Only the foreground SessionStart and one tool hook got through.
    await runHookProcess(
      hookCommand('forwarder', 'claude-code', 'session-start'),
      Buffer.from(JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' })),
      { env },
    );
    await runHookProcess(
      hookCommand('forwarder', 'claude-code', 'post-tool-use'),
      Buffer.from(
        JSON.stringify({
          ...base,
          hook_event_name: 'PostToolUse',
          tool_use_id: delivered,
          tool_name: 'Read',
          tool_input: { file_path: '/work/app/src/parse.ts' },
          tool_response: {},
        }),
      ),
      { env },
    );

    const seen = () =>
      (
        h.worker.store.db.prepare('SELECT tool_use_id FROM queue_seen WHERE session_id = ? ORDER BY tool_use_id').all(t.sessionId) as Array<{
          tool_use_id: string;
        }>
      ).map((r) => r.tool_use_id);
    await waitFor(() => lost.every((id) => seen().includes(id)), 20_000);
    expect(seen()).toEqual([delivered, ...lost].sort());
    const queuedTools = h.worker.store.db.prepare("SELECT count(*) AS n FROM queue WHERE session_id = ? AND kind = 'observation'").get(t.sessionId) as {
      n: number;
    };
    expect(queuedTools.n).toBe(3);
    expect(h.worker.store.sessions.get(t.sessionId)?.status).toBe('active');
    expect(fs.existsSync(transcript)).toBe(true);
  });
});
