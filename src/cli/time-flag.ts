import { isoToMs } from '../memory/iso-time.js';
import { UsageError } from './command.js';

/** An ISO 8601 date or date-time flag (`--since 2026-01-31`) as epoch ms, or a UsageError naming the flag. */
export function parseIsoFlag(name: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = isoToMs(raw);
  if (ms === null) throw new UsageError(`--${name} takes an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z, got '${raw}'`);
  return ms;
}
