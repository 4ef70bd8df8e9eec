import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readWorkerInfo, runningWorker } from '../../src/data-dir/index.js';
import { workerNodeFlags } from '../../src/hook/worker-node-flags.js';
import { captureIO } from '../support/cli-io.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memtrace worker start|stop|status', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => {
    const info = temp ? readWorkerInfo(path.join(temp.dir, 'data')) : null;
    if (info) {
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    temp?.cleanup();
  });

  it('starts one background worker, reports it, refuses to start a second, and stops it', async () => {
    temp = makeTempDir();
    const env = {
      HOME: temp.dir,
      MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'),
      MEMTRACE_PORT: String(await freePort()),
      MEMTRACE_PROVIDER: 'none',
      MEMTRACE_TELEMETRY: '0',
      PATH: process.env.PATH ?? '',
    };
    const run = async (...args: string[]) => {
      const c = captureIO({ env });
      const code = await main(['worker', ...args], c.io);
      return { code, out: c.stdout(), err: c.stderr() };
    };
    const notRunning = await run('status');
    expect(notRunning.code).toBe(1);
    expect(notRunning.out).toContain('not running');

    const started = await run('start');
    expect(started.code, started.err).toBe(0);
    const info = runningWorker(env.MEMTRACE_DATA_DIR)!;
    expect(started.out).toContain(`pid ${info.pid}`);
    expect(info.port).toBe(Number(env.MEMTRACE_PORT));
    // With V8's flags for a long-lived worker, as Node's own options: before the script, not after it.
    const argv = fs.readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0');
    const script = argv.findIndex((a) => a.endsWith('memtrace.cjs'));
    const flags = workerNodeFlags(process.versions.v8);
    expect(flags.length).toBeGreaterThan(0);
    expect(argv.slice(1, script)).toEqual([...flags]);

    const again = await run('start');
    expect(again.code).toBe(0);
    expect(again.out).toContain(`already running on ${env.MEMTRACE_DATA_DIR} (pid ${info.pid}, port ${info.port}); nothing started`);
    expect(runningWorker(env.MEMTRACE_DATA_DIR)?.pid).toBe(info.pid);

    const status = await run('status', '--json');
    expect(status.code).toBe(0);
    // Provider `none` is a mode, not a fault: status ok, and one line that says what it means.
    expect(JSON.parse(status.out)).toMatchObject({
      running: true,
      pid: info.pid,
      port: info.port,
      status: 'ok',
      degraded: [],
      health: {
        observing: false,
        hooks: { accepted: 0 },
        store: { budget_bytes: 2048 * 1024 * 1024, over_budget: false, auto_vacuum: 'incremental', raw_retention_days: 30 },
      },
      // Which observer and why, today's spend against the daily budget, and spend per day and session.
      observer: {
        line: 'observer: none — MEMTRACE_PROVIDER=none; events are stored, not observed',
        state: 'off',
        paused: null,
        budget: { tokens_per_day: 1_000_000, counted_today: 0 },
        today: { calls: 0, tokens_in: 0, tokens_out: 0 },
        days: [],
        sessions: [],
      },
    });
    const text = await run('status');
    expect(text.out).toContain('  status       ok\n');
    expect(text.out).toMatch(
      / {2}observer {5}no observer provider \(none\): events are stored, not observed; install an agent CLI — Claude Code, Gemini CLI, Codex, OpenCode, Copilot CLI or pi/,
    );
    expect(text.out).toMatch(/store +[\d.]+ MB of 2048\.0 MB \(MEMTRACE_MAX_DB_MB\)\n/);
    expect(text.out).toMatch(/retention +(raw data kept 30 day\(s\) after processing; no pass yet|last pass .*: removed 0 tool event\(s\))/);

    const stopped = await run('stop');
    expect(stopped.code).toBe(0);
    expect(stopped.out).toContain(`stopped (pid ${info.pid})`);
    expect(runningWorker(env.MEMTRACE_DATA_DIR)).toBeNull();
    expect((await run('stop')).out).toContain('nothing to stop');
  });

  it('answers --help for each action', async () => {
    const c = captureIO();
    expect(await main(['worker', 'start', '--help'], c.io)).toBe(0);
    expect(c.stdout()).toContain('usage: memtrace worker start');
  });
});
