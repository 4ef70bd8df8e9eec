import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHostCliProvider } from '../../../src/providers/cli/host-cli-provider.js';
import { CLAUDE_CODE_CLI } from '../../../src/providers/cli/claude-code.js';
import type { CliRun } from '../../../src/providers/cli/cli-process.js';
import { OPENCODE_CLI } from '../../../src/providers/cli/opencode.js';
import { ProviderError } from '../../../src/providers/types.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';

/**
 * The edge that runs a host CLI: a stand-in `claude` on PATH (a shell script) records what it was
 * given and answers like Claude Code's stream-json, or hangs with a child of its own. It reads its
 * priority once it has its prompt: memtrace lowers it right after the spawn, before writing stdin,
 * and a script that read it at its first instruction raced that on a loaded machine.
 */
const FAKE_CLAUDE = `#!/bin/sh
log=$FAKE_CLI_LOG
printf '%s\\n' "$@" > "$log/args"
env > "$log/env"
pwd > "$log/cwd"
cat > "$log/stdin"
cut -d' ' -f19 /proc/$$/stat > "$log/nice"
if [ "$FAKE_CLI_MODE" = hang ]; then
  sleep 300 &
  echo $! > "$log/child.pid"
  echo $$ > "$log/self.pid"
  wait
fi
echo '{"type":"system","subtype":"init","apiKeySource":"none"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"<observation type=\\"change\\"><title>t</title></observation>","usage":{"input_tokens":321,"output_tokens":12},"total_cost_usd":0.0004,"modelUsage":{"claude-haiku-4-5":{}}}'
`;

const request = { system: 'SYSTEM PROMPT', messages: [{ role: 'user' as const, content: 'the turn\u2019s events' }], maxOutputTokens: 777 };

describe('a host CLI as the observer, run by memtrace', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let bin: string;
  let log: string;
  let dataDir: string;
  beforeEach(() => {
    temp = makeTempDir();
    bin = path.join(temp.dir, 'bin');
    log = path.join(temp.dir, 'log');
    dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(bin);
    fs.mkdirSync(log);
    fs.writeFileSync(path.join(bin, 'claude'), FAKE_CLAUDE, { mode: 0o755 });
  });
  afterEach(() => temp.cleanup());

  const provider = (env: Record<string, string> = {}, timeoutMs = 30_000) =>
    createHostCliProvider(CLAUDE_CODE_CLI, {
      scratchRoot: path.join(dataDir, 'observer'),
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: temp.dir, FAKE_CLI_LOG: log, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: '1', ...env },
      timeoutMs,
    });
  const read = (name: string) => fs.readFileSync(path.join(log, name), 'utf8');

  it('passes the user’s environment minus memtrace’s own, marks the session, isolates the call and reads the reply', async () => {
    const result = await provider().complete(request);
    expect(result).toMatchObject({
      text: expect.stringContaining('<observation'),
      usage: { inputTokens: 321, outputTokens: 12 },
      costUsd: 0.0004,
      costEstimated: false,
    });
    const env = read('env');
    expect(env).toContain(`FAKE_CLI_LOG=${log}`);
    expect(env).toContain('MEMTRACE_OBSERVER_SESSION=1');
    expect(env).not.toMatch(/^MEMTRACE_(DATA_DIR|PORT)=/m);
    expect(env).toContain('CLAUDE_CODE_MAX_OUTPUT_TOKENS=777');
    const args = read('args').split('\n');
    for (const flag of ['-p', '--no-session-persistence', '--strict-mcp-config', '--safe-mode']) expect(args).toContain(flag);
    expect(args[args.indexOf('--tools') + 1]).toBe('');
    expect(args[args.indexOf('--settings') + 1]).toBe('{"disableAllHooks":true}');
    expect(args[args.indexOf('--system-prompt') + 1]).toBe('SYSTEM PROMPT');
    expect(read('stdin')).toBe('the turn\u2019s events');
    expect(read('cwd').trim()).toBe(path.join(dataDir, 'observer', 'claude-code'));
    // Each call's TMPDIR is its own and is gone afterwards.
    expect(fs.readdirSync(path.join(dataDir, 'observer', 'claude-code')).filter((n) => n.startsWith('tmp-'))).toEqual([]);
  });

  it('runs the CLI at a lower CPU priority than the agent', async () => {
    await provider().complete(request);
    expect(Number(read('nice').trim())).toBeGreaterThanOrEqual(10);
  });

  it('kills the CLI and everything it started when the call times out', async () => {
    const error = await provider({ FAKE_CLI_MODE: 'hang' }, 1_500)
      .complete(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'transport', detail: 'timeout' });
    for (const file of ['self.pid', 'child.pid']) {
      const pid = Number(read(file));
      await waitFor(() => !alive(pid), 10_000);
    }
  });

  it('kills the CLI’s process group when the worker stops (abort)', async () => {
    const controller = new AbortController();
    const call = provider({ FAKE_CLI_MODE: 'hang' }).complete({ ...request, signal: controller.signal });
    await waitFor(() => fs.existsSync(path.join(log, 'child.pid')) && fs.existsSync(path.join(log, 'self.pid')), 10_000);
    controller.abort(new Error('worker stopping'));
    await expect(call).rejects.toThrow('worker stopping');
    for (const file of ['self.pid', 'child.pid']) {
      const pid = Number(read(file));
      await waitFor(() => !alive(pid), 10_000);
    }
  });

  it('types a missing CLI as a refusal a person must fix (provider-wide wait), not a lost event', async () => {
    fs.rmSync(path.join(bin, 'claude'));
    const error = await provider({ PATH: bin })
      .complete(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', detail: 'cli_missing' });
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed child not yet reaped by its parent is a zombie: gone for our purposes.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('OpenCode as the observer: what memtrace asks of it first and hands to the call', () => {
  it('turns off every MCP server `opencode debug config` lists, asks at most once a minute, and sends the batch on stdin', async () => {
    const temp = makeTempDir();
    try {
      const runs: CliRun[] = [];
      let now = 1_000_000;
      const ok = (stdout: string) => ({ kind: 'exited' as const, exitCode: 0, signal: null, stdout, stderr: '', wallMs: 1 });
      const observer = createHostCliProvider(
        OPENCODE_CLI,
        { scratchRoot: path.join(temp.dir, 'observer'), env: { HOME: temp.dir, PATH: '/usr/bin' }, timeoutMs: 30_000 },
        {
          now: () => now,
          run: async (run) => {
            runs.push(run);
            if (run.args[0] === 'debug') return ok(JSON.stringify({ model: 'x/y', mcp: { docs: { type: 'remote' }, memtrace: { type: 'local' } } }));
            return ok(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/observer-cli/opencode-ok.jsonl'), 'utf8'));
          },
        },
      );
      const result = await observer.complete(request);
      expect(result).toMatchObject({
        text: '{"observations":[{"type":"change","title":"out.txt edited"}]}',
        usage: { inputTokens: 100, outputTokens: 10 },
        costUsd: null,
      });
      expect(runs.map((r) => r.args.slice(0, 2))).toEqual([
        ['debug', 'config'],
        ['run', '--pure'],
      ]);
      const call = runs[1]!;
      expect(call.stdin).toBe('the turn\u2019s events');
      expect(call.env).toMatchObject({ OPENCODE_DB: ':memory:', MEMTRACE_OBSERVER_SESSION: '1' });
      const config = JSON.parse(call.env.OPENCODE_CONFIG_CONTENT!);
      expect(Object.keys(config.mcp)).toEqual(['memtrace', 'docs']);
      expect(Object.values(config.mcp).every((server) => (server as { enabled: boolean }).enabled === false)).toBe(true);
      expect(config.agent['memtrace-observer']).toMatchObject({ mode: 'primary', permission: { '*': 'deny' } });
      expect(fs.readFileSync(config.agent['memtrace-observer'].prompt.slice('{file:'.length, -1), 'utf8')).toBe('SYSTEM PROMPT');
      now += 30_000;
      await observer.complete(request);
      expect(runs.filter((r) => r.args[0] === 'debug')).toHaveLength(1);
      now += 60_000;
      await observer.complete(request);
      expect(runs.filter((r) => r.args[0] === 'debug')).toHaveLength(2);
    } finally {
      temp.cleanup();
    }
  });
});
