import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bug (issue 27): a user logged in to their agent with a subscription and no API key got provider
 * `none` — every event stored, none ever observed. Now, with no key, the worker observes through
 * the agent's own CLI on PATH. Here a stand-in `claude` answers the way `claude -p` does (the real
 * one runs in test/e2e/claude-code-observer.test.ts); `memtrace worker` is the real command.
 */
const FAKE_CLAUDE = `#!/bin/sh
cat > /dev/null
echo '{"type":"system","subtype":"init","apiKeySource":"none"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"<observation type=\\"discovery\\"><title>seen through the user own CLI</title><sources><event>e1</event></sources></observation>","usage":{"input_tokens":900,"output_tokens":60},"total_cost_usd":0.0012,"modelUsage":{"claude-haiku-4-5":{}}}'
`;

describe('a user with no API key', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    temp?.cleanup();
  });

  it('is observed through the agent CLI on their PATH, one call per turn, with their spend recorded', async () => {
    temp = makeTempDir();
    const bin = path.join(temp.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'claude'), FAKE_CLAUDE, { mode: 0o755 });
    const dataDir = path.join(temp.dir, 'data');
    worker = await startChildWorker({ PATH: `${bin}:/usr/bin:/bin`, HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' });
    expect(worker.output()).toContain(
      'observer: each session’s own agent CLI, with your own login (claude-code found, gemini-cli not found, codex not found, opencode not found, copilot not found, pi not found) — no API key is set',
    );
    const post = (route: string, body: unknown) =>
      fetch(`${worker!.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...worker!.auth }, body: JSON.stringify(body) });
    for (let i = 1; i <= 3; i += 1)
      await post('/api/sessions/observations', {
        session_id: 'new-user',
        tool_use_id: `t${i}`,
        tool_name: 'Bash',
        tool_input: { command: `ls ${i}` },
        tool_response: 'ok',
      });
    await post('/api/sessions/summarize', { session_id: 'new-user', last_assistant_message: 'done' });
    await waitFor(async () => ((await (await fetch(`${worker!.url}/health`)).json()) as { queue_depth: number }).queue_depth === 0, 20_000);
    const health = (await (await fetch(`${worker.url}/health`)).json()) as { provider: string; observer: { today: Record<string, unknown> } };
    expect(health.provider).toBe('claude-code');
    expect(health.observer.today).toMatchObject({ calls: 1, events: 3, tokens_in: 900, tokens_out: 60, cost_usd: 0.0012, cost_estimated: false });
    const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    expect(db.prepare('SELECT title, provider, source_message_ids FROM observations').all()).toEqual([
      { title: 'seen through the user own CLI', provider: 'claude-code', source_message_ids: '[1]' },
    ]);
    db.close();
  });
});
