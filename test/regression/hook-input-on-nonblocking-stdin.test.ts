/**
 * Regression: Gemini CLI writes a hook's stdin through a non-blocking pipe. The hook's fast path
 * read it with one readFileSync(0), which throws EAGAIN once the pipe is empty while the writer
 * is still writing — and the bytes it had already read were dropped before falling back to the
 * stream, so a large payload (a 2.9 MB AfterTool) arrived cut and was lost as "not valid JSON".
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMTRACE_BIN } from '../../src/cli/memtrace-bin.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { hostPayload } from '../support/host-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });

/** Runs the bin as a host does, writing stdin in pieces with pauses so the hook finds the pipe empty mid-payload. */
function runHookSlowly(args: string[], input: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MEMTRACE_BIN, 'hook', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
    const bytes = Buffer.from(input);
    const piece = 256 * 1024;
    let at = 0;
    const next = () => {
      if (at >= bytes.length) return void child.stdin.end();
      child.stdin.write(bytes.subarray(at, at + piece), () => setTimeout(next, 30));
      at += piece;
    };
    next();
  });
}

describe('a large hook payload on a non-blocking stdin', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    temp?.cleanup();
  });

  it('is read whole and stored shortened, not dropped as invalid JSON', async () => {
    expect(fs.existsSync(path.resolve('dist/hook/hook.cjs'))).toBe(true);
    temp = makeTempDir();
    h = await startHarness(refusing());
    const output = Array.from({ length: 200_000 }, (_, i) => String(i + 1)).join('\n');
    const payload = {
      ...hostPayload('gemini-cli', 'captured', '08-AfterTool'),
      transcript_path: '/nonexistent.jsonl',
      tool_input: { command: 'seq 1 200000' },
      tool_response: { llmContent: `Output: ${output}\nExit Code: 0`, returnDisplay: output },
    };
    const input = JSON.stringify(payload);
    expect(input.length).toBeGreaterThan(2_500_000);
    const env = { MEMTRACE_PORT: String(h.worker.port), MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir, MEMTRACE_HOOK_TIMEOUT_MS: '20000' };
    const run = await runHookSlowly(['--host', 'gemini-cli', 'AfterTool'], input, env);
    expect(run).toEqual({ code: 0, stderr: '' });
    expect(fs.existsSync(path.join(h.dataDir, 'logs', 'hooks.log'))).toBe(false);
    const rows = h.worker.store.toolEvents.forSession(hostPayload('gemini-cli', 'captured', '08-AfterTool').session_id as string);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payloadChars).toBeLessThan(1024 * 1024);
    expect(JSON.parse((await h.get('/health')).text).hooks.shortened).toBe(1);
  });
});
