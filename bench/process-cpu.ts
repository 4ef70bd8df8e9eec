/**
 * CPU time, read from /proc (Linux): a process's own, and what this process's waited-for children
 * used (a session's whole process tree once it has exited: the host CLI, its hooks, its MCP
 * servers). Less sensitive to other work on a shared machine than wall time. Null elsewhere.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: fields are counted from after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of `pid`, in ms. */
export function processCpuMs(pid: number): number | null {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : null;
}

/** cutime + cstime of this process: the CPU of every child it has waited for, in ms. */
export function childrenCpuMs(): number | null {
  const f = statFields('self');
  return f ? (Number(f[13]) + Number(f[14])) * TICK_MS : null;
}

/**
 * CPU time of every live thread of `pid`, in ns (/proc/<pid>/task/<tid>/schedstat: time on the
 * CPU, at the scheduler's resolution rather than /proc/<pid>/stat's 10 ms ticks). Threads that
 * ended are not counted: for a long-lived process (a Node worker's threads live as long as it).
 */
export function processCpuNs(pid: number): number | null {
  try {
    let total = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* the thread ended between the listing and the read */
      }
    }
    return total;
  } catch {
    return null;
  }
}
