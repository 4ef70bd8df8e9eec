import { ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** Whether anonymous telemetry is on, and which layer decided it (the same answer as `telemetry status`). */
export function checkTelemetry(s: DoctorSnapshot): Finding[] {
  const t = s.telemetry;
  if (t.configError !== null)
    return [
      warn(
        'telemetry',
        `the telemetry config file is unreadable (${t.configError}); telemetry is ${t.enabled ? 'on' : 'off'}`,
        'memtrace telemetry disable (or enable) rewrites it',
      ),
    ];
  return [ok('telemetry', `${t.enabled ? 'on' : 'off'} — ${t.reason} (decided by ${t.decidedBy}); see exactly what is sent: memtrace telemetry preview`)];
}
