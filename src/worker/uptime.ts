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

export interface UptimeClockOptions {
  read?: () => number | null;
  monotonicMs?: () => number;
  wallMs?: () => number;
  /** The longest /proc/uptime is carried forward without reading it again. */
  refreshMs?: number;
}

/** How far the wall clock may run apart from the monotonic one before the file is read again (NTP slews far less). */
const SUSPEND_DRIFT_MS = 250;

/**
 * /proc/uptime carried forward by the monotonic clock, which is the same clock but for time
 * suspended: every hook call is timed by it, and reading the file cost the worker more than the
 * arithmetic. Time suspended moves the wall clock and not the monotonic one, so the file is read
 * again when the two disagree (or a monotonic clock that went back), and every `refreshMs` anyway.
 */
export function createUptimeClock(options: UptimeClockOptions = {}) {
  const { read = readUptimeS, monotonicMs = () => performance.now(), wallMs = Date.now, refreshMs = 600_000 } = options;
  let base: { uptimeS: number; atMs: number; wallAtMs: number } | null = null;
  return (): number | null => {
    const now = monotonicMs();
    const wall = wallMs();
    if (base !== null) {
      const elapsed = now - base.atMs;
      if (elapsed >= 0 && elapsed < refreshMs && Math.abs(wall - base.wallAtMs - elapsed) < SUSPEND_DRIFT_MS) return base.uptimeS + elapsed / 1000;
    }
    const value = read();
    base = value === null ? null : { uptimeS: value, atMs: now, wallAtMs: wall };
    return value;
  };
}
