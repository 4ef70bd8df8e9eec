import type { ClaimRecord, CheckedObservation } from './claim-check.js';

/** The files the session's own tool events wrote, among those claimed (compared through `toKey`). */
export interface FileEvidence {
  written: ReadonlySet<string>;
}

/**
 * `files_modified` keeps only paths a tool event of the session wrote (the model's word is not
 * evidence); `files_read` is what the model said plus what the events show the observed call
 * read. Paths compare by `toKey` (relative to the repository root). Pure.
 */
export function reconcileFileClaims(
  observation: CheckedObservation,
  evidence: FileEvidence,
  eventReads: readonly string[],
  toKey: (path: string) => string,
): { observation: CheckedObservation; removed: number } {
  const claims: ClaimRecord[] = [...observation.claims];
  const modified: string[] = [];
  for (const file of observation.files_modified) {
    const evidenced = evidence.written.has(toKey(file));
    claims.push({ kind: 'file_modified', value: file, verdict: evidenced ? 'evidenced' : 'removed' });
    if (evidenced) modified.push(file);
  }
  const readKeys = new Map<string, string>();
  for (const file of observation.files_read) readKeys.set(toKey(file), file);
  const fromEvents = new Set(eventReads.map(toKey));
  const read: string[] = [];
  for (const [key, file] of readKeys) {
    read.push(file);
    claims.push({ kind: 'file_read', value: file, source: fromEvents.has(key) ? 'both' : 'model' });
  }
  for (const key of fromEvents) {
    if (readKeys.has(key)) continue;
    read.push(key);
    claims.push({ kind: 'file_read', value: key, source: 'events' });
  }
  return { observation: { ...observation, files_modified: modified, files_read: read, claims }, removed: observation.files_modified.length - modified.length };
}

/**
 * A path as a key: relative to `root` when inside it, `.`/`..` resolved, no trailing slash.
 * Pure string work (POSIX separators; a Windows path is compared as written).
 */
export function pathKey(path: string, root: string | null): string {
  const trimmed = path.trim().replace(/\\/g, '/');
  const absolute = trimmed.startsWith('/');
  const parts: string[] = [];
  for (const part of trimmed.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  const normal = `${absolute ? '/' : ''}${parts.join('/')}`;
  if (absolute && root) {
    const base = root.replace(/\/+$/, '');
    if (normal === base) return '.';
    if (normal.startsWith(`${base}/`)) return normal.slice(base.length + 1);
  }
  return normal;
}

/** A path made absolute against `base` (when relative and a base is known), then normalised. */
export function absolutePathKey(path: string, base: string | null): string {
  const trimmed = path.trim().replace(/\\/g, '/');
  return pathKey(!trimmed.startsWith('/') && base ? `${base.replace(/\/+$/, '')}/${trimmed}` : trimmed, null);
}
