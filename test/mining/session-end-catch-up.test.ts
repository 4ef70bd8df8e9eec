import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/**
 * Claude Code kills background (async) hooks when it exits, so the last tool events of a session
 * can be lost. The worker mines the session's transcript after SessionEnd, without --watch.
 */
describe('catch-up after a session ends', () => {
  let fake: FakeLlm;
  let h: Harness;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
    temp?.cleanup();
  });

  it('observes the tool event whose hook was cut off, and not again the one that arrived', async () => {
    temp = makeTempDir();
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'change', title: 'Observed', narrative: 'n' }) });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), {
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 50 },
    });
    const t = new TranscriptBuilder();
    t.prompt('finish the release');
    const delivered = t.call('Read', { file_path: '/work/app/CHANGELOG.md' });
    t.call('Bash', { command: 'npm publish --dry-run LOST-AT-EXIT' });
    t.text('Released.');
    const transcript = path.join(temp.dir, `${t.sessionId}.jsonl`);
    t.writeTo(transcript);
    await h.post('/api/sessions/observations', {
      session_id: t.sessionId,
      tool_use_id: delivered,
      tool_name: 'Read',
      tool_input: { file_path: '/work/app/CHANGELOG.md' },
      tool_response: {},
      cwd: '/work/app',
      transcript_path: transcript,
    });
    await h.drained();
    expect(fake.requests).toHaveLength(1);

    await h.post('/api/sessions/end', { session_id: t.sessionId, reason: 'other', transcript_path: transcript });
    await waitFor(() => fake.requests.some((r) => JSON.stringify(r.body).includes('LOST-AT-EXIT')), 10_000);
    await h.drained();
    const calls = fake.requests.map((r) => JSON.stringify(r.body));
    expect(calls.filter((c) => c.includes('LOST-AT-EXIT'))).toHaveLength(1);
    expect(calls.filter((c) => c.includes('CHANGELOG.md'))).toHaveLength(1);
  });

  it('queues a Codex tool call whose async hook was killed at exit from the rollout, and the delivered one once', async () => {
    temp = makeTempDir();
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'change', title: 'Observed', narrative: 'n' }) });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), {
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 50 },
    });
    const calls = hostPayloads('codex', 'session').filter((p) => p.event === 'PostToolUse');
    const sessionId = calls[0]!.payload.session_id as string;
    // Where Codex keeps it: the worker knows a rollout by its name.
    const rollout = path.join(temp.dir, `rollout-2026-11-25T14-15-06-${sessionId}.jsonl`);
    fs.copyFileSync(hostTranscript('codex', 'rollout.jsonl'), rollout);
    const delivered = calls[0]!.payload;
    await h.post('/api/sessions/observations', {
      session_id: sessionId,
      tool_use_id: delivered.tool_use_id,
      tool_name: delivered.tool_name,
      tool_input: delivered.tool_input,
      tool_response: delivered.tool_response,
      cwd: '/tmp/hr-codex3/proj',
      transcript_path: rollout,
      platform: 'codex',
    });
    await h.drained();

    await h.post('/api/sessions/end', { session_id: sessionId, reason: 'other', transcript_path: rollout });
    const stored = () =>
      (
        h.worker.store.db.prepare('SELECT tool_use_id FROM tool_events WHERE session_id = ? ORDER BY tool_use_id').all(sessionId) as Array<{
          tool_use_id: string;
        }>
      ).map((r) => r.tool_use_id);
    await waitFor(() => stored().length === calls.length, 10_000);
    await h.drained();
    expect(stored()).toEqual(calls.map((c) => c.payload.tool_use_id as string).sort());
  });
});
