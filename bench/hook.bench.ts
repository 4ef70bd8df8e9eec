import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startChildWorker } from '../test/support/child-worker.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { percentile } from './stats.js';

export const name = 'hook';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_HOOK_RUNS ?? 40);

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/**
 * `memtrace hook post-tool-use` as Claude Code runs it — a new process, the payload on stdin —
 * against a live worker in its own process, paired with `node -e 0` in the same run (A B A B …):
 * medians of each and of the pairwise ratios. CPU is the child's user + system time as the kernel
 * accounts it (bash's `times`, millisecond resolution).
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-hook-bench-');
  const worker = await startChildWorker({ MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  const payloadFile = path.join(temp.dir, 'payload.json');
  const payload = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8');
  const env = { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PORT: new URL(worker.url).port };
  const hook = `"${process.execPath}" "${path.join(ROOT, 'bin/memtrace.cjs')}" hook post-tool-use --via settings`;
  const baseline = `"${process.execPath}" -e 0`;
  try {
    const a: Sample[] = [];
    const b: Sample[] = [];
    for (let i = -3; i < RUNS; i += 1) {
      // A new tool_use_id per run: every call is a real accepted event, not a duplicate.
      fs.writeFileSync(payloadFile, payload.replace('toolu_e2e_read', `toolu_bench_${i + 3}`));
      const sa = await timeOnce(hook, payloadFile, env);
      const sb = await timeOnce(baseline, payloadFile, env);
      if (i >= 0) {
        a.push(sa);
        b.push(sb);
      }
    }
    const health = (await (await fetch(`${worker.url}/health`)).json()) as { hooks: { accepted: number; rejected: number } };
    const med = (xs: number[]) => Math.round(percentile([...xs].sort((x, y) => x - y), 50) * 10) / 10;
    const pairRatio = (f: (s: Sample) => number) => Math.round(percentile(a.map((s, i) => f(s) / f(b[i]!)).sort((x, y) => x - y), 50) * 100) / 100;
    return {
      runs: RUNS,
      hook: { wall_median_ms: med(a.map((s) => s.wallMs)), cpu_median_ms: med(a.map((s) => s.cpuMs)) },
      node_e_0: { wall_median_ms: med(b.map((s) => s.wallMs)), cpu_median_ms: med(b.map((s) => s.cpuMs)) },
      ratio_wall_median: pairRatio((s) => s.wallMs),
      ratio_cpu_median: pairRatio((s) => s.cpuMs),
      targets: { wall: 1.3, cpu: 1.5 },
      worker_accepted: health.hooks.accepted,
      worker_rejected: health.hooks.rejected,
    };
  } finally {
    await worker.stop();
    temp.cleanup();
  }
}

/** Runs `command < stdinFile` under bash and reads the child's CPU time from `times`. */
function timeOnce(command: string, stdinFile: string, env: Record<string, string>): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/bash', ['-c', `${command} < "${stdinFile}" >/dev/null 2>"${stdinFile}.err"; times`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      const wallMs = performance.now() - started;
      // `times` prints the shell's own times, then its children's: "0m0.031s 0m0.008s".
      const children = out.trim().split('\n').at(-1) ?? '';
      const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(children);
      const err = fs.existsSync(`${stdinFile}.err`) ? fs.readFileSync(`${stdinFile}.err`, 'utf8').trim() : '';
      if (err !== '') return reject(new Error(`the command printed: ${err}`));
      if (!m) return reject(new Error(`no times output: ${out}`));
      resolve({ wallMs, cpuMs: (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 });
    });
  });
}
