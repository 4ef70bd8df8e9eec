import { workerNodeFlags } from '../src/hook/worker-node-flags.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';

/**
 * A worker as a hook (or `memtrace worker start`) starts it, with the V8 flags the background
 * worker gets (src/hook/worker-node-flags.ts): what the host benches' "as installed" measures.
 * BENCH_WORKER_CPU_PROF=DIR: the worker runs under --cpu-prof, its profile written to DIR when it
 * stops (where its CPU went over a host's sessions).
 */
export function startInstalledWorker(env: Record<string, string>): Promise<ChildWorker> {
  const profile = process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : [];
  return startChildWorker(env, { nodeArgs: [...workerNodeFlags(process.versions.v8), ...profile] });
}
