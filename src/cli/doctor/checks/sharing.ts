import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** Each shared project (docs/sharing.md): synced lately, nothing refused, nothing stuck waiting. */
export function checkSharing(s: DoctorSnapshot): Finding[] {
  if ('error' in s.sharing) return [warn('sharing', `what is shared cannot be read: ${s.sharing.error}`, 'memtrace share list')];
  if (s.sharing.length === 0) return [ok('sharing', 'no project is shared (memtrace share add shares one through Postgres)')];
  const fix = 'memtrace share sync says why now; fix the database or its URL (memtrace share add again), see docs/sharing.md';
  return s.sharing.map((p) => (p.status === 'ok' ? ok('sharing', p.line) : p.status === 'warn' ? warn('sharing', p.line, fix) : fail('sharing', p.line, fix)));
}
