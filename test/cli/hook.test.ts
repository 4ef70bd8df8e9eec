import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memtrace hook', () => {
  const seen: Array<{ method: string; url: string; body: any }> = [];
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body: raw ? JSON.parse(raw) : null });
        if (req.url?.startsWith('/api/context/inject')) res.writeHead(200, { 'content-type': 'text/markdown' }).end('# memtrace context — app\n- remembered');
        else res.writeHead(req.url === '/api/sessions/observations' ? 202 : 200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const run = async (name: string, input: unknown, env: Record<string, string> = {}) => {
    const c = captureIO({ stdin: typeof input === 'string' ? input : JSON.stringify(input), env: { MEMTRACE_PORT: String(port), ...env } });
    const code = await main(['hook', name], c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };

  it('session-start registers the session and prints the context the way Claude Code expects', async () => {
    seen.length = 0;
    const r = await run('session-start', { session_id: 's1', cwd: '/home/dev/app', hook_event_name: 'SessionStart', source: 'startup' });
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url.split('?')[0]}`)).toEqual(['POST /api/sessions/init', 'GET /api/context/inject']);
    expect(seen[0]!.body).toMatchObject({ session_id: 's1', project: 'app', platform: 'claude-code' });
    expect(seen[1]!.url).toContain('project=app');
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# memtrace context — app\n- remembered' } });
  });

  it('post-tool-use forwards the tool event with its tool_use_id', async () => {
    seen.length = 0;
    await run('post-tool-use', { session_id: 's1', cwd: '/w/app', tool_name: 'Edit', tool_input: { file_path: 'a.ts' }, tool_response: { ok: true }, tool_use_id: 'toolu_9' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/sessions/observations', body: { session_id: 's1', tool_use_id: 'toolu_9', tool_name: 'Edit', cwd: '/w/app' } });
  });

  it('user-prompt-submit, stop and session-end map to init, summarize and end', async () => {
    const temp = makeTempDir();
    const transcript = path.join(temp.dir, 't.jsonl');
    fs.writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { content: 'hi' } })}\n${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'All tests pass.' }] } })}\n`);
    seen.length = 0;
    await run('user-prompt-submit', { session_id: 's1', cwd: '/w/app', prompt: 'fix the test' });
    await run('stop', { session_id: 's1', transcript_path: transcript });
    await run('session-end', { session_id: 's1', reason: 'exit' });
    expect(seen.map((s) => s.url)).toEqual(['/api/sessions/init', '/api/sessions/summarize', '/api/sessions/end']);
    expect(seen[0]!.body.prompt).toBe('fix the test');
    expect(seen[1]!.body.last_assistant_message).toBe('All tests pass.');
    temp.cleanup();
  });

  it('exits 0 with one clear line when the worker is down, within the timeout', async () => {
    const started = Date.now();
    const r = await run('post-tool-use', { session_id: 's', tool_name: 'Read', tool_input: {}, tool_response: {} }, { MEMTRACE_PORT: '9', MEMTRACE_HOOK_TIMEOUT_MS: '1000' });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("worker not reachable at http://127.0.0.1:9 (start it with 'memtrace worker')");
  });

  it('exits 0 with one line on garbage stdin', async () => {
    const r = await run('post-tool-use', 'not json at all');
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('not valid JSON');
  });

  it('rejects an unknown hook name with usage and exit 2', async () => {
    const r = await run('pre-compact', {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown hook 'pre-compact'");
  });
});
