import { compareVersions, VERSION_PATTERN as VERSION } from '../dashboards/version-order.js';
import type { VersionInfo } from './install-sums.js';

/** A review asked for something the data cannot answer: one line, exit 2. */
export class ReviewInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewInputError';
  }
}

/** Refuses a pair that cannot be reviewed before any data is read. */
export function checkVersionPair(baseline: string, candidate: string): void {
  for (const [flag, version] of [
    ['--baseline', baseline],
    ['--candidate', candidate],
  ] as const) {
    if (!VERSION.test(version)) throw new ReviewInputError(`unknown version ${JSON.stringify(version)} for ${flag}: not a version number (like 0.2.0)`);
  }
  if (baseline === candidate) throw new ReviewInputError(`--baseline and --candidate are both ${baseline}: a review compares two different versions`);
}

/** Refuses a version the source holds no events from, naming those it does hold. */
export function checkVersionsPresent(wanted: readonly string[], present: readonly VersionInfo[], where: string): void {
  const known = new Set(present.map((v) => v.version));
  const missing = wanted.find((v) => !known.has(v));
  if (missing === undefined) return;
  const listed = [...present].sort((a, b) => compareVersions(b.version, a.version)).map((v) => v.version);
  const hint =
    listed.length === 0 ? 'it holds no events a review reads' : `versions with events: ${listed.slice(0, 12).join(', ')}${listed.length > 12 ? ', …' : ''}`;
  throw new ReviewInputError(`no events from version ${missing} in ${where} (${hint})`);
}

/**
 * The two newest memtrace releases, older first: versions that sent memtrace's own events,
 * by version number. The legacy releases number higher (13.x) but are older, so they never count.
 */
export function newestPair(versions: readonly VersionInfo[]): [string, string] | null {
  const ours = versions.filter((v) => v.memtraceEvents > 0 && VERSION.test(v.version)).sort((a, b) => compareVersions(a.version, b.version));
  if (ours.length < 2) return null;
  return [ours[ours.length - 2]!.version, ours[ours.length - 1]!.version];
}
