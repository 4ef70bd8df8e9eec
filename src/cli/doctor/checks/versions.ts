import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

const RESTART = 'memtrace worker stop && memtrace worker start';

/** The installed version (this CLI), the running worker's, and the store's (who last wrote it). */
export function checkVersions(s: DoctorSnapshot): Finding[] {
  const installed = s.installed.version;
  const running = s.worker?.version ?? healthVersion(s);
  const store = s.store.state === 'ok' ? s.store.writtenBy : s.store.state === 'too_new' ? s.store.writtenBy : null;
  const parts = [`installed ${installed} (${s.installed.packageRoot})`, `running ${running ?? '(no worker)'}`, `store ${store ?? '(not written yet)'}`];
  const detail = parts.join(', ');
  if (s.store.state === 'too_new')
    return [
      fail(
        'versions',
        `${detail}: the store was written by a newer memtrace (${s.store.unknownSteps.join(', ')}), which this one refuses to touch`,
        `install that version or newer (npm install -g memtrace@${store ?? 'latest'}) so the CLI, hooks and worker match the store`,
      ),
    ];
  if (running !== null && running !== installed)
    return [warn('versions', `${detail}: the worker runs another version than the one installed here`, `${RESTART} (the installed version then serves)`)];
  return [ok('versions', detail)];
}

function healthVersion(s: DoctorSnapshot): string | null {
  if (s.health?.reachable !== true) return null;
  const version = s.health.body.version;
  return typeof version === 'string' ? version : null;
}
