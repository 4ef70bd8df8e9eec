import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** The data dir's worker (its lock and /health) and the hooks' Unix socket. */
export function checkWorker(s: DoctorSnapshot): Finding[] {
  return [workerFinding(s), socketFinding(s)];
}

function workerFinding(s: DoctorSnapshot): Finding {
  if (s.worker === null)
    return warn(
      'worker',
      `no worker runs on ${s.dataDir}; hook events are spooled until one starts (the next hook starts it)`,
      'memtrace worker start (its log: DATA_DIR/logs/worker.log)',
    );
  const where = `pid ${s.worker.pid}, port ${s.worker.port ?? '(starting)'}`;
  if (s.health === null) return warn('worker', `the worker (${where}) is starting`, 'run memtrace doctor again in a few seconds');
  if (!s.health.reachable)
    return fail(
      'worker',
      `the worker (${where}) holds the data dir but does not answer /health: ${s.health.error}`,
      `memtrace worker stop && memtrace worker start (if stop cannot end it: kill ${s.worker.pid}; nothing accepted is lost)`,
    );
  const body = s.health.body;
  const degraded = Array.isArray(body.degraded) ? (body.degraded as Array<Record<string, unknown>>) : [];
  if (degraded.length > 0) {
    const reasons = degraded.map((d) => `${String(d.reason)}${d.provider ? ` (${String(d.provider)})` : ''}`).join(', ');
    return warn('worker', `running (${where}) but degraded: ${reasons}`, 'memtrace worker status says what each wait is and when it is retried');
  }
  return ok('worker', `running (${where}), queue ${String(body.queue_depth ?? '?')} message(s)`);
}

function socketFinding(s: DoctorSnapshot): Finding {
  const { socket } = s;
  if (s.worker === null)
    return ok('socket', socket.exists ? 'DATA_DIR/worker.sock is left from a stopped worker; hooks see no one there and spool' : 'no socket (no worker)');
  if (!socket.exists)
    return fail(
      'socket',
      'the worker runs but DATA_DIR/worker.sock is missing: hooks cannot reach it and fall back to the slow Node hook',
      'memtrace worker stop && memtrace worker start',
    );
  if (!socket.accepts)
    return fail(
      'socket',
      `DATA_DIR/worker.sock does not take connections (${socket.error ?? 'refused'}): hooks fall back to the slow Node hook`,
      'memtrace worker stop && memtrace worker start',
    );
  return ok('socket', 'DATA_DIR/worker.sock takes connections (hooks reach the worker without a token or TCP port)');
}
