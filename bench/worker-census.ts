/**
 * What a running process holds, read from /proc (Linux): resident memory, open file descriptors,
 * threads, and the processes below it (children and theirs). Null fields where /proc cannot say.
 */
import fs from 'node:fs';

export interface Census {
  rss_mb: number | null;
  fds: number | null;
  threads: number | null;
  descendants: number;
}

export function census(pid: number): Census {
  let rss: number | null = null;
  let threads: number | null = null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  } catch {
    /* gone */
  }
  let fds: number | null = null;
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    /* gone, or not ours */
  }
  return { rss_mb: rss === null || Number.isNaN(rss) ? null : Math.round((rss / 1024) * 10) / 10, fds, threads, descendants: descendantsOf(pid).length };
}

/** Every live process below `pid`. */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      /* exited meanwhile */
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0)
    for (const child of parents.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  return found;
}

/** Least-squares slope of y over x (growth per unit of x); null with fewer than 3 points. */
export function slope(points: ReadonlyArray<[number, number]>): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? null : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}
