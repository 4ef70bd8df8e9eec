import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** The hook forwarder every installed hook runs, and the native build `memtrace install` makes of it. */
export function checkForwarder(s: DoctorSnapshot): Finding[] {
  const { script, native, link, others, compilerFound } = s.forwarder;
  if (!script.exists)
    return [
      fail(
        'forwarder',
        `memtrace's hook forwarder ${script.path} is missing: hooks that run it fail (their events are lost to memtrace)`,
        'reinstall memtrace (npm install -g memtrace), then memtrace install',
      ),
    ];
  if (native.state === 'ok') {
    // The hook commands run bin/hook first: a link to another build (or none) leaves them on the script's path.
    if (link.target !== native.path)
      return [
        warn(
          'forwarder',
          `${link.path} ${link.target === null ? 'is missing' : `links to ${link.target}`}, not to ${native.path}: each hook firing takes the script's shell first (about 0.7 ms)`,
          'memtrace install (links it)',
        ),
      ];
    return [ok('forwarder', `native forwarder ${native.path} built from this version's source`)];
  }
  const stale = others.length > 0 ? `; ${others.join(', ')} ${others.length === 1 ? 'was' : 'were'} built from another version's source` : '';
  if (native.state === 'missing') {
    const why = compilerFound ? 'not built' : 'not built (no C compiler, cc, on PATH)';
    return [
      warn(
        'forwarder',
        `native forwarder ${native.path} ${why}${stale}: hooks take the slower perl/curl/Node path (a few ms to ~100 ms per tool call)`,
        compilerFound ? 'memtrace install (builds it)' : 'install a C compiler (e.g. apt-get install gcc), then memtrace install',
      ),
    ];
  }
  const what = native.state === 'not_executable' ? 'is not executable' : 'is not owned by you (the hooks refuse to run it)';
  return [warn('forwarder', `native forwarder ${native.path} ${what}; hooks take the slower path`, `rm ${native.path} && memtrace install`)];
}
