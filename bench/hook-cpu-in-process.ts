import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createFileLogger } from '../src/cli/file-logger.js';
import { loadWorkerConfig } from '../src/config.js';
import { WORKER_SOCKET } from '../src/data-dir/index.js';
import { chooseObserver } from '../src/providers/index.js';
import { startWorker } from '../src/worker/runtime.js';
import { realisticEvents } from '../test/support/realistic-events.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { openMcpSession } from './hook-processes.js';
import { roundedPercentile } from './stats.js';

/**
 * The hook-cpu bench's in-process figure: the worker as `memtrace worker` composes it (file log,
 * telemetry on, an observer whose batches stay open), started in this process; the events come
 * from one long-lived client process (hook-socket-client.ts), so this process's CPU
 * (process.cpuUsage: every thread) over a round is the worker's. Median over rounds, ms per event.
 */
export async function measureInProcess(options: { events: number; rounds: number; warmup: number; project: string }): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-hook-cpu-in-');
  const replayFile = path.join(temp.dir, 'replies.jsonl');
  const env: Record<string, string> = { MEMTRACE_PROVIDER: 'replay', MEMTRACE_REPLAY_FILE: replayFile, MEMTRACE_PORT: '0' };
  fs.writeFileSync(replayFile, `${JSON.stringify({ text: '<skip_summary/>', usage: { input_tokens: 1, output_tokens: 1 } })}\n`);
  const loaded = loadWorkerConfig(env, temp.dir, { dataDir: path.join(temp.dir, 'data') });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const selected = chooseObserver(env, { dataDir: loaded.config.dataDir });
  if ('error' in selected) throw new Error(selected.error);
  const log = createFileLogger(loaded.config.dataDir, process.stderr);
  const worker = await startWorker({ config: loaded.config, env, provider: selected.choice.primary, observers: selected.choice, log, stderr: process.stderr });
  const client = fork(path.join(import.meta.dirname, 'hook-socket-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const socketPath = path.join(loaded.config.dataDir, WORKER_SOCKET);
  const realistic = realisticEvents(200, { seed: 37 });
  let serial = 0;
  const bodies = (n: number, perSession: number, make: (i: number) => Record<string, unknown>) =>
    Array.from({ length: n }, () => {
      serial += 1;
      return JSON.stringify({ ...make(serial), session_id: `in-process-${perSession}-${Math.floor(serial / perSession)}`, tool_use_id: `toolu_in_${serial}` });
    });
  const fixture = (i: number) => ({
    cwd: options.project,
    hook_event_name: 'PostToolUse',
    tool_name: 'Read',
    tool_input: { file_path: `${options.project}/notes-${i % 7}.txt` },
    tool_response: { type: 'text', file: { filePath: `${options.project}/notes.txt`, content: 'alpha\nbeta\n', numLines: 3, startLine: 1, totalLines: 3 } },
    duration_ms: 6,
  });
  const real = (i: number) => ({ ...realistic[i % realistic.length], cwd: options.project, hook_event_name: 'PostToolUse' });
  const send = (batch: string[]) =>
    new Promise<number>((resolve) => {
      client.once('message', (m: { ok: number }) => resolve(m.ok));
      client.send({ socketPath, bodies: batch });
    });
  const figures: Record<'fixture' | 'realistic', number[]> = { fixture: [], realistic: [] };
  try {
    // As for the workers measured from outside: the SDK loaded by one MCP session, the hook path compiled by a warm-up.
    await openMcpSession({ PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: loaded.config.dataDir }, options.project);
    await send(bodies(options.warmup, 30, fixture));
    await send(bodies(options.warmup, 3, real));
    for (let round = 0; round < options.rounds; round += 1) {
      for (const set of ['fixture', 'realistic'] as const) {
        const batch = set === 'fixture' ? bodies(options.events, 30, fixture) : bodies(options.events, 3, real);
        await new Promise((r) => setTimeout(r, 300));
        const before = process.cpuUsage();
        const ok = await send(batch);
        await new Promise((r) => setTimeout(r, 300));
        const used = process.cpuUsage(before);
        if (ok !== batch.length) throw new Error(`${batch.length - ok} of ${batch.length} events were not accepted in process`);
        figures[set].push((used.user + used.system) / 1000 / batch.length);
      }
    }
    return Object.fromEntries(
      Object.entries(figures).map(([set, xs]) => [set, { median: roundedPercentile(xs, 50, 3), rounds: xs.map((x) => Math.round(x * 1000) / 1000) }]),
    );
  } finally {
    client.kill();
    await worker.stop();
    temp.cleanup();
  }
}
