/**
 * ISO 8601 dates and date-times as epoch ms (`2026-01-31`, `2026-01-31T12:00:00.5+02:00`); a
 * date alone is midnight UTC and a time without a zone is UTC. Null for anything else, including
 * days that do not exist (Date.parse rolls 2026-02-30 over into March). Pure.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function isoToMs(text: string): number | null {
  const m = ISO.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  const normalized = text.trim().replace(' ', 'T');
  const ms = Date.parse(normalized.length > 10 && m[4] === undefined ? `${normalized}Z` : normalized);
  return Number.isFinite(ms) ? ms : null;
}
