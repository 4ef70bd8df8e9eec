import { ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** A running worker takes the spool within its 30 s tick; older entries mean it cannot. */
const STUCK_MS = 120_000;

/** Hook events written to DATA_DIR/spool while no worker could take them. */
export function checkSpool(s: DoctorSnapshot): Finding[] {
  const { spool } = s;
  if ('error' in spool) return [warn('spool', `DATA_DIR/spool cannot be read: ${spool.error}`, `ls -la ${s.dataDir}/spool (it must be yours, mode 0700)`)];
  const findings: Finding[] = [];
  if (spool.unreadable > 0)
    findings.push(
      warn(
        'spool_unreadable',
        `${spool.unreadable} spooled event(s) could not be read and were set aside`,
        `inspect ${s.dataDir}/spool/unreadable, then remove it`,
      ),
    );
  if (spool.events === 0) return [ok('spool', 'no hook events wait in the spool'), ...findings];
  const age = spool.oldestMs === null ? '' : `, the oldest ${Math.round((s.nowMs - spool.oldestMs) / 60_000)} min old`;
  if (s.worker === null)
    return [
      warn('spool', `${spool.events} hook event(s) wait in the spool for a worker${age}`, 'memtrace worker start (they are taken in order, each once)'),
      ...findings,
    ];
  if (spool.oldestMs !== null && s.nowMs - spool.oldestMs > STUCK_MS)
    return [
      warn(
        'spool',
        `${spool.events} hook event(s) in the spool${age}, not taken by the running worker`,
        'see DATA_DIR/logs/worker.log (spool replay); restarting the worker retries them',
      ),
      ...findings,
    ];
  return [ok('spool', `${spool.events} hook event(s) in the spool, being taken by the worker`), ...findings];
}
