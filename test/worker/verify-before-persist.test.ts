import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeGitRepo } from '../support/git-repo.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const FABRICATED = 'deadbeef1234567890abcdef1234567890abcdef';

describe('verify before persist, in the worker', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    temp?.cleanup();
  });

  async function run(reply: string, event: Record<string, unknown>) {
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply })] }));
    const res = await h.post('/api/sessions/observations', { session_id: 's', tool_use_id: 't1', tool_input: {}, tool_response: { ok: true }, ...event });
    expect(res.status).toBe(202);
    await h.drained();
    return h;
  }

  it('stores and injects only the honest observation when the other cites a commit the repository does not hold', async () => {
    temp = makeTempDir();
    const repo = path.join(temp.dir, 'repo');
    const [real] = makeGitRepo(repo);
    const reply =
      observationXml({ type: 'bugfix', title: `Fixed in commit ${real!.slice(0, 10)}`, narrative: 'The cache key now includes the locale.' }) +
      observationXml({ type: 'change', title: `Landed as commit ${FABRICATED}` });
    const harness = await run(reply, { tool_name: 'Bash', tool_input: { command: 'git log -1' }, cwd: repo });
    const stored = harness.worker.store.observations.recentForProject(repo, 10);
    expect(stored.map((o) => o.title)).toEqual([`Fixed in commit ${real!.slice(0, 10)}`]);
    const context = await harness.get(`/api/context/inject?cwd=${encodeURIComponent(repo)}&budget_tokens=2000`);
    expect(context.text).toContain('Fixed in commit');
    expect(context.text).not.toContain(FABRICATED);
    const claims = JSON.parse((harness.worker.store.db.prepare('SELECT claims FROM observations').get() as { claims: string }).claims);
    expect(claims).toEqual([{ kind: 'commit', value: real!.slice(0, 10), verdict: 'verified', in: 'title' }]);
  });

  it('keeps a claim it cannot check outside a repository, marks it, and counts it apart from rejections', async () => {
    temp = makeTempDir();
    const reply = observationXml({ type: 'change', title: 'Shipped', facts: ['released as commit a1b2c3d4e5'] });
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply })] }), { env: { MEMTRACE_TELEMETRY: '1' } });
    await h.post('/api/sessions/observations', { session_id: 's', tool_use_id: 't1', tool_name: 'Bash', tool_input: {}, tool_response: {}, cwd: temp.dir });
    await h.drained();
    const row = h.worker.store.db.prepare('SELECT facts, claims FROM observations').get() as { facts: string; claims: string };
    expect(JSON.parse(row.facts)).toEqual(['released as commit a1b2c3d4e5']);
    expect(JSON.parse(row.claims)).toEqual([{ kind: 'commit', value: 'a1b2c3d4e5', verdict: 'unverifiable', in: 'fact' }]);
    await h.post('/api/sessions/end', { session_id: 's' });
    const rollup = h.worker.telemetry.preview(20).find((e) => e.event === 'observer_turn_rollup');
    expect(rollup?.properties).toMatchObject({ claims_rejected: 0, claims_unverifiable: 1 });
  });

  it('removes a files_modified entry no tool event wrote and counts it; keeps a file a real Edit wrote', async () => {
    temp = makeTempDir();
    const repo = path.join(temp.dir, 'repo');
    makeGitRepo(repo);
    const reply = observationXml({
      type: 'change',
      title: 'Edited the config',
      filesModified: ['config/app.json', 'src/invented.ts'],
      filesRead: ['README.md'],
    });
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply })] }), { env: { MEMTRACE_TELEMETRY: '1' } });
    await h.post('/api/sessions/observations', {
      session_id: 's',
      tool_use_id: 'edit-1',
      tool_name: 'Edit',
      tool_input: { file_path: path.join(repo, 'config/app.json'), old_string: 'a', new_string: 'b' },
      tool_response: {},
      cwd: repo,
    });
    await h.drained();
    const stored = h.worker.store.observations.recentForProject(repo, 5)[0]!;
    expect(stored.files_modified).toEqual(['config/app.json']);
    expect(stored.files_read).toEqual(['README.md']);
    await h.post('/api/sessions/end', { session_id: 's' });
    expect(h.worker.telemetry.preview(20).find((e) => e.event === 'observer_turn_rollup')?.properties).toMatchObject({ file_claims_removed: 1 });
  });

  it('refuses a notes-only summary: alone it is dropped as malformed_xml, beside an observation it is left out', async () => {
    temp = makeTempDir();
    const notesOnly = summaryXml({ notes: 'nothing much happened' });
    h = await startHarness(
      createReplayProvider({
        lines: [JSON.stringify({ text: notesOnly }), JSON.stringify({ text: observationXml({ type: 'discovery', title: 'Kept' }) + notesOnly })],
      }),
    );
    await h.post('/api/sessions/summarize', { session_id: 's', last_assistant_message: 'done' });
    await h.drained();
    await h.post('/api/sessions/observations', { session_id: 's', tool_use_id: 't2', tool_name: 'Read', tool_input: {}, tool_response: {} });
    await h.drained();
    expect(h.worker.store.summaries.count()).toBe(0);
    expect(h.worker.store.observations.count()).toBe(1);
    expect(h.log.records.find((r) => r.message === 'observer output dropped')?.fields).toMatchObject({ class: 'malformed_xml' });
  });
});
