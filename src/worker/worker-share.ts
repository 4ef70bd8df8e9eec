import os from 'node:os';
import { DEFAULT_SHARE_LOOP, sharePollMs, startShareLoop, type ShareLoop, type ShareLoopDeps } from '../share/index.js';
import { nodeTimers } from '../timers.js';
import type { WorkerOptions } from './worker-options.js';

/**
 * The worker's share loop (docs/sharing.md): its poll from the environment (a bad value is
 * warned about and the default kept), the rest of its pace from the defaults or the options.
 */
export function startWorkerShare(options: Pick<WorkerOptions, 'env' | 'share' | 'timers'>, dataDir: string, deps: Omit<ShareLoopDeps, 'timers'>): ShareLoop {
  const poll = sharePollMs(options.env);
  if (poll.problem) deps.log.warn(poll.problem);
  return startShareLoop(
    {
      dataDir,
      env: options.env,
      homeDir: options.env.HOME || os.homedir(),
      pollMs: poll.pollMs,
      checkMs: DEFAULT_SHARE_LOOP.checkMs,
      idleCheckMs: DEFAULT_SHARE_LOOP.idleCheckMs,
      backoff: DEFAULT_SHARE_LOOP.backoff,
      ...options.share,
    },
    { ...deps, timers: options.timers ?? nodeTimers },
  );
}
