import { spawnSync } from 'node:child_process';
import type { RunProgram } from './native-forwarder.js';

/** The child-process edge of the native forwarder's build: a program run to its end, stderr kept. */
export const runProgram: RunProgram = (command, args) => {
  const done = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'ignore', 'pipe'] });
  return { status: done.status, error: done.error, stderr: done.stderr ?? '' };
};
