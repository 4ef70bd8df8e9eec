import { fail, ok, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** memtrace's own variables (MEMTRACE_PORT, budgets, sizes): one that is wrong keeps the worker from starting. */
export function checkConfig(s: DoctorSnapshot): Finding[] {
  if (s.configErrors.length === 0) return [ok('config', `data dir ${s.dataDir}; memtrace's variables are valid`)];
  return [fail('config', s.configErrors.join('; '), 'fix or unset the variable named (memtrace worker --help lists them)')];
}
