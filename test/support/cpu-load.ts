import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Keeps the CPUs busy from other processes (one busy loop per core asked for), the way a loaded
 * developer machine is: tests that must hold under load run while this runs. Stop it in `finally`.
 */
export function startCpuLoad(processes = 2): { stop(): void } {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i += 1) children.push(spawn(process.execPath, ['-e', 'for (;;) Math.sqrt(Math.random())'], { stdio: 'ignore' }));
  return {
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}
