import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const MOVE_ASIDE =
  'stop the worker (memtrace worker stop), move DATA_DIR/memtrace.db and its -wal/-shm files aside (keep them), and start it again: a fresh store is made';

/** The store opens with this version's driver, is not from a newer memtrace, and passes PRAGMA quick_check. */
export function checkStore(s: DoctorSnapshot): Finding[] {
  const store = s.store;
  switch (store.state) {
    case 'missing':
      return [ok('store', 'no store yet: the worker makes DATA_DIR/memtrace.db on its first start')];
    case 'no_driver':
      return [fail('store', `the SQLite driver cannot load, so nothing can be stored or read: ${store.reason}`, store.fix)];
    case 'too_new':
      return [
        fail(
          'store',
          `memtrace.db was written by a newer memtrace (${store.writtenBy ?? 'unknown version'}); this one leaves it untouched and cannot use it`,
          `install memtrace ${store.writtenBy ?? 'latest'} or newer (npm install -g memtrace@latest)`,
        ),
      ];
    case 'unreadable':
      return [fail('store', `memtrace.db cannot be opened: ${store.error}`, MOVE_ASIDE)];
    case 'ok': {
      if (store.quickCheck.length !== 1 || store.quickCheck[0] !== 'ok')
        return [fail('store', `PRAGMA quick_check found damage: ${store.quickCheck.slice(0, 3).join('; ')}`, MOVE_ASIDE)];
      const pending = store.pendingSteps > 0 ? `; ${store.pendingSteps} schema step(s) to apply at the worker's next start` : '';
      return [ok('store', `memtrace.db passes PRAGMA quick_check (${mb(store.bytes)})${pending}`)];
    }
  }
}

/** Free disk under the data dir, and the store's size against MEMTRACE_MAX_DB_MB. */
export function checkDisk(s: DoctorSnapshot): Finding[] {
  const findings: Finding[] = [];
  if (s.disk === null) findings.push(warn('disk', 'the free space of the data dir’s file system could not be read', `df -h ${s.dataDir}`));
  else if (s.disk.freeBytes < 64 * 1024 * 1024)
    findings.push(fail('disk', `${mb(s.disk.freeBytes)} free under ${s.dataDir}: writes are about to fail (the worker then pauses)`, 'free disk space'));
  else if (s.disk.freeBytes < 512 * 1024 * 1024) findings.push(warn('disk', `${mb(s.disk.freeBytes)} free under ${s.dataDir}`, 'free disk space'));
  else findings.push(ok('disk', `${mb(s.disk.freeBytes)} free under ${s.dataDir}`));
  if (s.store.state === 'ok') {
    const over = s.store.bytes > s.maxDbBytes;
    findings.push(
      over
        ? warn(
            'store_size',
            `memtrace.db is ${mb(s.store.bytes)}, over MEMTRACE_MAX_DB_MB (${mb(s.maxDbBytes)}): raw data is pruned first; observations are kept`,
            'raise MEMTRACE_MAX_DB_MB, or forget old memory (memtrace forget --before ISO)',
          )
        : ok('store_size', `memtrace.db is ${mb(s.store.bytes)} of ${mb(s.maxDbBytes)} (MEMTRACE_MAX_DB_MB)`),
    );
  }
  return findings;
}
