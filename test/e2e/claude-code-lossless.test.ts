/**
 * SLOW (about a minute): nothing the real Claude Code hands memtrace is lost (issue 17, items 1
 * and 11). Claude Code (pinned devDependency) runs offline against a fake Anthropic API with the
 * hooks `memtrace install --project` wrote, against a real worker:
 * - a Write of a 1.3 MB file, an Edit of it and a Bash printing 2.5 MB are all stored;
 * - ten sessions run while two other processes keep both CPUs busy (background hooks are killed
 *   when `claude -p` exits, and SessionEnd may never come): no tool call is missing afterwards.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { claudeUnavailableReason, runClaudeCode } from '../support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../support/claude-code-scenario.js';
import { captureIO } from '../support/cli-io.js';
import { startCpuLoad } from '../support/cpu-load.js';
import { startFakeAnthropic, type ScriptTurn } from '../support/fake-anthropic.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping the lossless Claude Code e2e test: ${unavailable}`);
const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });

describe.skipIf(unavailable !== null)('nothing the real Claude Code sends is lost', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let h: Harness;
  let project: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-cc-lossless-');
    project = path.join(temp.dir, 'project');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    // Stored events stay queued (the provider refuses), so each can be looked at.
    h = await startHarness(refusing(), {
      dataDir: path.join(temp.dir, 'memtrace-data'),
      watch: { dirs: [], intervalMs: 1_000, idleMs: 2_000, firstPassDelayMs: 1_000, catchUpDelayMs: 500 },
    });
    env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_TELEMETRY: '0' };
    const c = captureIO({ env: { ...env, HOME: temp.dir } });
    expect(await main(['install', '--project', project], c.io), c.stderr()).toBe(0);
  });
  afterAll(async () => {
    await h?.stop();
    temp?.cleanup();
  });
  const seen = (sessionId: string) =>
    (h.worker.store.db.prepare('SELECT tool_use_id FROM queue_seen WHERE session_id = ?').all(sessionId) as Array<{ tool_use_id: string }>).map(
      (r) => r.tool_use_id,
    );
  const payload = (toolUseId: string) =>
    JSON.parse((h.worker.store.db.prepare('SELECT payload FROM queue WHERE tool_use_id = ?').get(toolUseId) as { payload: string }).payload);

  async function session(script: ScriptTurn[], prompt: string, home: string) {
    const api = await startFakeAnthropic({ script });
    try {
      return await runClaudeCode({
        projectDir: project,
        prompt,
        apiUrl: api.url,
        home,
        env,
        allowedTools: ['Bash', 'Read', 'Edit', 'Write'],
        timeoutMs: 180_000,
      });
    } finally {
      await api.close();
    }
  }

  it('stores a Write of a 1.3 MB file, an Edit of it and a Bash printing 2.5 MB', { timeout: 240_000 }, async () => {
    const big = path.join(project, 'big.txt');
    const content = `HEAD-OF-BIG\n${'0123456789abcdef\n'.repeat(80_000)}TAIL-OF-BIG\n`;
    const script: ScriptTurn[] = [
      { toolCalls: [{ id: 'toolu_big_write', name: 'Write', input: { file_path: big, content } }] },
      { toolCalls: [{ id: 'toolu_big_edit', name: 'Edit', input: { file_path: big, old_string: 'TAIL-OF-BIG', new_string: 'END-OF-BIG' } }] },
      { toolCalls: [{ id: 'toolu_big_bash', name: 'Bash', input: { command: 'seq 1 400000', description: 'Print a lot' } }] },
      { text: 'Wrote, edited and printed.' },
    ];
    const run = await session(script, 'Write big.txt, edit its last line, then print a long sequence.', path.join(temp.dir, 'home-big'));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(fs.statSync(big).size).toBeGreaterThan(1_300_000);
    const sessionId = run.json.session_id as string;
    const ids = ['toolu_big_write', 'toolu_big_edit', 'toolu_big_bash'];
    await waitFor(() => ids.every((id) => seen(sessionId).includes(id)), 30_000);
    expect(JSON.stringify(payload('toolu_big_write').tool_input)).toContain('HEAD-OF-BIG');
    expect(JSON.stringify(payload('toolu_big_edit'))).toContain('END-OF-BIG');
    // Claude Code itself keeps only the head of a long Bash output in the hook's payload.
    expect(JSON.stringify(payload('toolu_big_bash').tool_response)).toContain('1\\n2\\n3\\n');
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ rejected: 0, failed: 0 });
  });

  it('misses no tool call of ten sessions run while the CPUs are busy', { timeout: 900_000 }, async () => {
    const load = startCpuLoad(2);
    const sessions: string[] = [];
    try {
      for (let i = 0; i < 10; i += 1) {
        const dir = path.join(temp.dir, `notes-${i}`);
        fs.mkdirSync(dir, { recursive: true });
        const run = await session(basicScript(writeBasicProject(dir)), BASIC_PROMPT, path.join(temp.dir, `home-load-${i}`));
        expect(run.exitCode, run.stderr).toBe(0);
        sessions.push(run.json.session_id as string);
      }
    } finally {
      load.stop();
    }
    const tools = ['toolu_e2e_bash_ok', 'toolu_e2e_read', 'toolu_e2e_edit', 'toolu_e2e_bash_fail'];
    const missing = () => sessions.flatMap((id) => tools.filter((t) => !seen(id).includes(t)).map((t) => `${id}:${t}`));
    await waitFor(() => missing().length === 0, 60_000).catch(() => undefined);
    expect(missing()).toEqual([]);
  });
});
