import { fail, ok, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** With no worker running: whether its last start failed, and the schedule hooks follow (docs/interfaces.md#upgrades). */
export function checkWorkerStart(s: DoctorSnapshot): Finding[] {
  if (s.worker !== null) return [];
  if (s.startProblem === null) return [ok('worker_start', 'no failed worker start on record')];
  return [fail('worker_start', s.startProblem, "fix the cause it names, then 'memtrace worker start' (hooks also try again on their schedule)")];
}
