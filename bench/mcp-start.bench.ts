import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../test/support/temp-dir.js';
import { roundedPercentile } from './stats.js';

export const name = 'mcp-start';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 20);
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/**
 * What a host waits for at every session start: from spawning `memtrace mcp` to its answer to
 * `initialize`, interleaved with a bare Node that answers one line (the floor). The server with
 * no compiled-code cache (no data dir to keep it in), with the cache, and with the cache and an
 * empty NODE_EXTRA_CA_CERTS, as install writes it (the first two keep this machine's value).
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-mcp-bench-');
  const dataDir = path.join(temp.dir, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const bin = path.join(ROOT, 'bin/memtrace.cjs');
  const ca: Record<string, string> = process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {};
  const base = { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_TELEMETRY: '0' };
  const variants: Record<string, { args: string[]; env: Record<string, string> }> = {
    node_answering_a_line: { args: ['-e', "process.stdin.once('data', () => process.stdout.write('{}\\n'))"], env: { ...base, ...ca } },
    mcp_no_cache: { args: [bin, 'mcp'], env: { ...base, ...ca, MEMTRACE_DATA_DIR: path.join(temp.dir, 'absent') } },
    mcp_cached: { args: [bin, 'mcp'], env: { ...base, ...ca, MEMTRACE_DATA_DIR: dataDir } },
    mcp_cached_as_installed: { args: [bin, 'mcp'], env: { ...base, MEMTRACE_DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: '' } },
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  try {
    for (let i = -2; i < RUNS; i += 1) {
      for (const [key, v] of Object.entries(variants)) {
        const ms = await timeToAnswer(v.args, v.env);
        if (i >= 0) samples[key]!.push(ms);
      }
    }
    const p = (xs: number[], q: number) => roundedPercentile(xs, q);
    const floor = p(samples.node_answering_a_line!, 50);
    return {
      runs: RUNS,
      node_extra_ca_certs: Boolean(process.env.NODE_EXTRA_CA_CERTS),
      ...Object.fromEntries(
        Object.entries(samples).map(([key, xs]) => [key, { p50_ms: p(xs, 50), p95_ms: p(xs, 95), vs_node: Math.round((p(xs, 50) / floor) * 100) / 100 }]),
      ),
    };
  } finally {
    temp.cleanup();
  }
}

function timeToAnswer(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.stdout.once('data', () => {
      const ms = performance.now() - started;
      child.stdin.end();
      child.once('exit', () => resolve(ms));
    });
    child.stdin.write(INITIALIZE);
  });
}
