import fs from 'node:fs';

/**
 * Seconds since boot as /proc/uptime says (10 ms steps): the one clock a shell hook can read
 * without starting a process, so the worker reads the same one to time it. Null off Linux.
 */
function readUptimeS(): number | null {
  try {
    const value = Number.parseFloat(fs.readFileSync('/proc/uptime', 'latin1'));
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * /proc/uptime read at most once per `refreshMs`, carried forward in between by the monotonic
 * clock (the same clock but for time suspended, which the next read picks up): every hook call
 * is timed by it, and reading the file cost the worker more than the arithmetic.
 */
export function createUptimeClock(read: () => number | null = readUptimeS, monotonicMs: () => number = () => performance.now(), refreshMs = 1_000) {
  let base: { uptimeS: number; atMs: number } | null = null;
  return (): number | null => {
    const now = monotonicMs();
    if (base !== null && now - base.atMs < refreshMs && now >= base.atMs) return base.uptimeS + (now - base.atMs) / 1000;
    const value = read();
    base = value === null ? null : { uptimeS: value, atMs: now };
    return value;
  };
}
