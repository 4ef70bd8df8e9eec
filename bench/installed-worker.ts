import { workerNodeFlags } from '../src/hook/worker-node-flags.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';

/**
 * A worker as a hook (or `memtrace worker start`) starts it, with the V8 flags the background
 * worker gets (src/hook/worker-node-flags.ts): what the host benches' "as installed" measures.
 */
export function startInstalledWorker(env: Record<string, string>): Promise<ChildWorker> {
  return startChildWorker(env, { nodeArgs: [...workerNodeFlags(process.versions.v8)] });
}
