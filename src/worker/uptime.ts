import fs from 'node:fs';

/**
 * Seconds since boot as /proc/uptime says (10 ms steps): the one clock a shell hook can read
 * without starting a process, so the worker reads the same one to time it. Null off Linux.
 */
export function readUptimeS(): number | null {
  try {
    const value = Number.parseFloat(fs.readFileSync('/proc/uptime', 'latin1'));
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}
