import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { captureIO } from '../support/cli-io.js';
import { makeGitRepo } from '../support/git-repo.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('memtrace show', () => {
  let h: Harness;
  let temp: ReturnType<typeof makeTempDir>;
  let real: string;
  let repo: string;
  beforeAll(async () => {
    temp = makeTempDir();
    repo = path.join(temp.dir, 'repo');
    [real] = makeGitRepo(repo) as [string];
    const reply = observationXml({
      type: 'bugfix',
      title: 'Cache key includes the locale',
      facts: [`fixed in commit ${real.slice(0, 8)}`, 'pushed as commit 0badc0de99'],
      filesModified: ['src/cache.ts', 'src/other.ts'],
    });
    h = await startHarness(
      createReplayProvider({
        lines: [
          JSON.stringify({ text: reply, model: 'claude-haiku-4-5' }),
          JSON.stringify({ text: summaryXml({ request: 'fix the cache', completed: 'locale added to the key' }) }),
        ],
      }),
    );
    await h.post('/api/sessions/observations', {
      session_id: 'sess-1',
      tool_use_id: 'toolu_edit',
      tool_name: 'Edit',
      tool_input: { file_path: path.join(repo, 'src/cache.ts'), old_string: 'a', new_string: 'b' },
      tool_response: {},
      cwd: repo,
    });
    await h.post('/api/sessions/summarize', { session_id: 'sess-1', last_assistant_message: 'done' });
    await h.drained();
  });
  afterAll(async () => {
    await h.stop();
    temp.cleanup();
  });

  const show = async (...args: string[]) => {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir } });
    const code = await main(['show', ...args], c.io);
    return { code, out: c.stdout(), err: c.stderr() };
  };

  it('prints an observation with the tool event it came from, the observer and each claim’s check', async () => {
    const id = h.worker.store.observations.forSession('sess-1')[0]!.id;
    const r = await show(String(id));
    expect(r.code).toBe(0);
    expect(r.out).toContain(`observation ${id} · bugfix · Cache key includes the locale`);
    expect(r.out).toMatch(/from {6}queue message \d+: Edit — file_path: .*src\/cache\.ts {2}\[toolu_edit\]/);
    expect(r.out).toContain('observer  replay · model claude-haiku-4-5 · prompt obs-v2-turn');
    expect(r.out).toContain(`✓ commit ${real.slice(0, 8)} (in the fact): the repository holds it`);
    expect(r.out).toContain('✗ commit 0badc0de99 (in the fact): the repository does not hold it; the statement was removed');
    expect(r.out).toContain('✓ modified src/cache.ts: a tool event of the session wrote it');
    expect(r.out).toContain('✗ modified src/other.ts: no tool event of the session wrote it; removed');
  });

  it('gives the same as JSON', async () => {
    const id = h.worker.store.observations.forSession('sess-1')[0]!.id;
    const view = JSON.parse((await show(String(id), '--json')).out);
    expect(view).toMatchObject({
      id,
      files_modified: ['src/cache.ts'],
      provenance: { session_id: 'sess-1', tool_events: [{ tool_name: 'Edit', tool_use_id: 'toolu_edit' }], provider: 'replay' },
    });
    expect(view.claims).toContainEqual({ kind: 'commit', value: '0badc0de99', verdict: 'rejected', in: 'fact' });
  });

  it('lists a session’s observations and summaries', async () => {
    const r = await show('--session', 'sess-1');
    expect(r.code).toBe(0);
    expect(r.out).toContain('session sess-1');
    expect(r.out).toMatch(/bugfix +Cache key includes the locale {2}← Edit · 2 claim\(s\) removed/);
    expect(r.out).toContain('locale added to the key');
  });

  it('says what is wrong with a bad request', async () => {
    expect((await show('999999')).code).toBe(1);
    expect((await show('abc')).code).toBe(2);
    expect((await show('1', '--session', 'x')).code).toBe(2);
    expect((await show('--session', 'nope')).err).toContain("no session 'nope'");
  });
});
