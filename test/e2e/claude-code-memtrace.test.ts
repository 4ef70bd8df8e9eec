/**
 * SLOW (~10 s): the real Claude Code CLI (pinned devDependency), offline against a fake Anthropic
 * API, in a project where `memtrace install --project` wrote the hooks, talking to a real memtrace
 * worker. One scripted session (a Bash call, a Read, an Edit, a failing Bash, a final answer) must
 * leave every event stored; the next session must start with memtrace's context. What the hooks
 * cost a session is measured by `npm run bench -- claude-code-hooks`, not asserted here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { claudeUnavailableReason, runClaudeCode } from '../support/claude-code.js';
import { basicScript, BASIC_FINAL_TEXT, BASIC_PROMPT, writeBasicProject } from '../support/claude-code-scenario.js';
import { captureIO } from '../support/cli-io.js';
import { hookContextTexts, startFakeAnthropic } from '../support/fake-anthropic.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';

const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping the memtrace + Claude Code e2e test: ${unavailable}`);

const TOOL_IDS = ['toolu_e2e_bash_ok', 'toolu_e2e_read', 'toolu_e2e_edit', 'toolu_e2e_bash_fail'];

describe.skipIf(unavailable !== null)('memtrace installed into the real Claude Code', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let observer: FakeLlm;
  let h: Harness;
  let project: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-cc-');
    project = path.join(temp.dir, 'shop api');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    observer = await startFakeLlm('anthropic', {
      kind: 'text',
      text: observationXml({ type: 'discovery', title: 'notes.txt lists alpha then gamma', narrative: 'The notes file was edited.' }),
    });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: observer.url }), {
      dataDir: path.join(temp.dir, 'memtrace-data'),
      batch: DEFAULT_BATCH_LIMITS,
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 300 },
    });
    env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0' };
    const c = captureIO({ env: { ...env, HOME: temp.dir } });
    expect(await main(['install', '--project', project], c.io), c.stderr()).toBe(0);
    // This file measures the hooks: install also registers the MCP server (.mcp.json), whose own
    // start-up cost to a session is measured by bench/memory.bench.ts, so it is taken out here.
    fs.rmSync(path.join(project, '.mcp.json'));
  });
  afterAll(async () => {
    await h?.stop();
    await observer?.close();
    temp?.cleanup();
  });

  async function session(dir: string, home: string, withSummary = false) {
    const notes = writeBasicProject(dir);
    const api = await startFakeAnthropic({ script: basicScript(notes) });
    if (withSummary) observer.push({ kind: 'text', text: summaryXml({ request: 'edit notes', completed: BASIC_FINAL_TEXT }) });
    try {
      const run = await runClaudeCode({
        projectDir: dir,
        prompt: BASIC_PROMPT,
        apiUrl: api.url,
        home,
        env,
        allowedTools: ['Bash', 'Read', 'Edit', 'Write'],
        forwardPorts: [h.worker.port],
      });
      return { run, bodies: api.mainBodies() };
    } finally {
      await api.close();
    }
  }

  it('stores every tool event with its tool_use_id, the failure with its error, the prompt and the final message; the next session gets the context', async () => {
    const home = path.join(temp.dir, 'home');
    const first = await session(project, home);
    expect(first.run.exitCode, first.run.stderr).toBe(0);
    const sessionId = first.run.json.session_id as string;

    // Background hooks may be cut off when `claude -p` exits; the worker's catch-up mines the rest.
    await waitFor(
      () => (h.worker.store.db.prepare('SELECT count(*) AS n FROM queue_seen WHERE session_id = ?').get(sessionId) as { n: number }).n >= TOOL_IDS.length,
      15_000,
    );
    await h.drained(20_000);
    const seen = (
      h.worker.store.db.prepare('SELECT tool_use_id FROM queue_seen WHERE session_id = ? ORDER BY tool_use_id').all(sessionId) as Array<{ tool_use_id: string }>
    ).map((r) => r.tool_use_id);
    expect(seen).toEqual(expect.arrayContaining(TOOL_IDS));
    const session1 = h.worker.store.sessions.get(sessionId)!;
    expect(session1).toMatchObject({ project: fs.realpathSync(project), status: 'ended', transcriptPath: expect.stringContaining(`${sessionId}.jsonl`) });
    expect(h.worker.store.sessions.prompts(sessionId).map((p) => p.prompt)).toEqual([BASIC_PROMPT]);
    const observerCalls = observer.requests.map((r) => JSON.stringify(r.body));
    // One observer call for the turn: its events (the failing Bash among them, shown failed) and its end.
    expect(observerCalls.some((c) => c.includes('result=\\"failed') && c.includes('Exit code 3'))).toBe(true);
    expect(observerCalls.some((c) => c.includes(BASIC_FINAL_TEXT.slice(0, 30)))).toBe(true);
    expect(observerCalls.some((c) => c.includes(BASIC_PROMPT))).toBe(true);
    expect(h.worker.store.observations.count()).toBeGreaterThan(0);
    const hooks = JSON.parse((await h.get('/health')).text).hooks;
    expect(hooks).toMatchObject({ rejected: 0, failed: 0 });

    const second = await session(project, home);
    expect(second.run.exitCode, second.run.stderr).toBe(0);
    const context = hookContextTexts(second.bodies[0]).join('\n');
    expect(context).toContain('memtrace context');
    expect(context).toContain('notes.txt lists alpha then gamma');
  });
});
