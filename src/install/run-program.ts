import { spawn, spawnSync } from 'node:child_process';
import type { RunProgram, RunProgramAsync } from './native-forwarder.js';

/** The child-process edge of the native forwarder's build: a program run to its end, stderr kept. */
export const runProgram: RunProgram = (command, args) => {
  const done = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'ignore', 'pipe'] });
  return { status: done.status, error: done.error, stderr: done.stderr ?? '' };
};

/** runProgram without blocking the event loop (a running worker builds its forwarder with it). */
export const runProgramAsync: RunProgramAsync = (command, args) =>
  new Promise((resolve) => {
    let stderr = '';
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => resolve({ status: null, error, stderr }));
    child.once('close', (status) => resolve({ status, stderr }));
  });
