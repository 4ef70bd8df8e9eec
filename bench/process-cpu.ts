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
 * CPU time of each live thread of `pid`, in ns (/proc/<pid>/task/<tid>/schedstat: time on the
 * CPU, at the scheduler's resolution rather than /proc/<pid>/stat's 10 ms ticks), by thread:
 * `main` (the event loop) and the others by name (/proc/<pid>/task/<tid>/comm; threads of one
 * name summed, V8's compiler and GC helpers all being `node`). Threads that ended are not counted:
 * for a long-lived process (a Node worker's threads live as long as it). Null without /proc.
 */
function threadCpuNs(pid: number): Record<string, number> | null {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const byName: Record<string, number> = {};
  for (const tid of tids) {
    try {
      const name = tid === String(pid) ? 'main' : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      byName[name] = (byName[name] ?? 0) + Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      /* the thread ended between the listing and the read */
    }
  }
  return byName;
}

/** utime and stime of `pid` (every thread), in ms: user space against the kernel. */
function processUserSystemMs(pid: number): { user: number; system: number } | null {
  const f = statFields(pid);
  return f ? { user: Number(f[11]) * TICK_MS, system: Number(f[12]) * TICK_MS } : null;
}

/** A process's CPU at one moment: in all (ns), by thread, and user against system time. */
export interface CpuSnapshot {
  totalNs: number;
  threads: Record<string, number>;
  times: { user: number; system: number } | null;
}

/** Null without /proc. */
export function cpuSnapshot(pid: number): CpuSnapshot | null {
  const threads = threadCpuNs(pid);
  if (threads === null) return null;
  return { totalNs: Object.values(threads).reduce((sum, ns) => sum + ns, 0), threads, times: processUserSystemMs(pid) };
}

/** What a process spent between two snapshots over `events`, added into a running split. */
export interface CpuSplit {
  events: number;
  threadsNs: Record<string, number>;
  userMs: number;
  systemMs: number;
}

export function addToSplit(into: CpuSplit | undefined, before: CpuSnapshot, after: CpuSnapshot, events: number): CpuSplit {
  const split = into ?? { events: 0, threadsNs: {}, userMs: 0, systemMs: 0 };
  split.events += events;
  for (const [name, ns] of Object.entries(after.threads)) split.threadsNs[name] = (split.threadsNs[name] ?? 0) + ns - (before.threads[name] ?? 0);
  if (before.times && after.times) {
    split.userMs += after.times.user - before.times.user;
    split.systemMs += after.times.system - before.times.system;
  }
  return split;
}

/** A split as ms per event, threads under 5 µs an event left out. */
export function splitPerEvent(split: CpuSplit): { threads: Record<string, number>; user: number; system: number } {
  const perEvent = (ms: number) => Math.round((ms / split.events) * 1000) / 1000;
  return {
    threads: Object.fromEntries(
      Object.entries(split.threadsNs)
        .map(([name, ns]) => [name, perEvent(ns / 1e6)] as const)
        .filter(([, ms]) => ms >= 0.005),
    ),
    user: perEvent(split.userMs),
    system: perEvent(split.systemMs),
  };
}
