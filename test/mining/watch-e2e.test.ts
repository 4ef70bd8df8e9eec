import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/** End to end: a real worker with `--watch`, real HTTP hooks, a fake Anthropic server. */
describe('worker --watch end to end', () => {
  let fake: FakeLlm;
  let h: Harness;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
    temp?.cleanup();
  });

  async function start(): Promise<string> {
    temp = makeTempDir();
    const projects = path.join(temp.dir, 'projects');
    fs.mkdirSync(path.join(projects, '-work-app'), { recursive: true });
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'discovery', title: 'Seen', narrative: 'n' }) });
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: fake.url, timeoutMs: 2_000 });
    // Passes are run by the test (the timer is an hour away); files count as idle at once.
    h = await startHarness(provider, {
      loop: { concurrency: 1, backoff: { baseMs: 100, capMs: 400 }, authProbe: { baseMs: 100, capMs: 400 } },
      watch: { dirs: [projects], intervalMs: 3_600_000, idleMs: 0, firstPassDelayMs: 3_600_000, catchUpDelayMs: 3_600_000 },
    });
    return path.join(projects, '-work-app');
  }

  const prompts = () => fake.requests.map((r) => JSON.stringify(r.body.messages));

  it('observes what the hooks missed and never again what they delivered', async () => {
    const dir = await start();
    const t = new TranscriptBuilder();
    t.prompt('fix the build');
    const delivered = t.call('Read', { file_path: '/work/app/DELIVERED.md' });
    t.call('Bash', { command: 'npm run MISSED-build' });
    t.text('Build fixed.');
    // The PostToolUse hook reached the worker for the first call only.
    const posted = await h.post('/api/sessions/observations', {
      session_id: t.sessionId,
      tool_use_id: delivered,
      tool_name: 'Read',
      tool_input: { file_path: '/work/app/DELIVERED.md' },
      tool_response: { type: 'text' },
      cwd: '/work/app',
    });
    expect(posted.status).toBe(202);
    await h.drained();
    fake.push(
      { kind: 'text', text: observationXml({ type: 'bugfix', title: 'Build script fixed', narrative: 'n' }) },
      { kind: 'text', text: summaryXml({ request: 'fix the build', completed: 'done' }) },
    );
    t.writeTo(path.join(dir, `${t.sessionId}.jsonl`));

    const report = await h.worker.watcher!.runPass();
    expect(report).toMatchObject({ eventsQueued: 1, eventsDuplicate: 1, summariesQueued: 1 });
    await h.drained();

    const all = prompts();
    expect(all).toHaveLength(3); // the hook's event, the missed one, the session summary
    expect(all.filter((p) => p.includes('DELIVERED.md'))).toHaveLength(1);
    expect(all.filter((p) => p.includes('MISSED-build'))).toHaveLength(1);
    expect(h.worker.store.observations.recentForProject('/work/app', 10).map((o) => o.title)).toContain('Build script fixed');
    expect(h.worker.store.summaries.latestForProject('/work/app')?.request).toBe('fix the build');

    // A second pass finds nothing new: no more observer calls.
    expect((await h.worker.watcher!.runPass())?.byOutcome.unchanged).toBe(1);
    await h.drained();
    expect(fake.requests).toHaveLength(3);
  });

  it('keeps answering hooks while it mines a large transcript', async () => {
    const dir = await start();
    const t = new TranscriptBuilder();
    t.prompt('read everything');
    for (let i = 0; i < 60; i += 1) t.call('Read', { file_path: `f${i}.ts` }, { type: 'text', file: { filePath: `f${i}.ts`, content: 'z'.repeat(250_000) } });
    t.writeTo(path.join(dir, `${t.sessionId}.jsonl`));

    let passDone = false;
    const pass = h.worker.watcher!.runPass().then((r) => {
      passDone = true;
      return r;
    });
    const hook = await h.post('/api/sessions/observations', {
      session_id: 'other',
      tool_use_id: 'x1',
      tool_name: 'Bash',
      tool_input: {},
      tool_response: {},
      cwd: '/w',
    });
    expect(hook.status).toBe(202);
    expect(passDone).toBe(false); // the hook was answered in the middle of the pass
    expect((await pass)?.eventsQueued).toBe(60);
  });
});
