import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot, HostHooksSnapshot } from '../snapshot.js';

/** memtrace's hooks in each host's user configuration: present, complete, and running a forwarder that exists. */
export function checkHooks(s: DoctorSnapshot): Finding[] {
  return s.hooks.map((h) => hostFinding(h, s.forwarder.script.path));
}

function hostFinding(h: HostHooksSnapshot, forwarder: string): Finding {
  const check = `hooks:${h.host}`;
  const install = `memtrace install --host ${h.host}`;
  if (h.state === 'invalid' || h.state === 'unreadable')
    return fail(
      check,
      `${h.file} ${h.error ?? 'cannot be read'}: ${h.host} may ignore it, hooks included`,
      `fix the file by hand (or move it aside), then ${install}`,
    );
  if (h.events.length === 0) {
    if (!h.cliOnPath) return ok(check, `no hooks in ${h.file}; ${h.cli} is not on PATH`);
    return warn(check, `${h.cli} is on PATH but memtrace's hooks are not in ${h.file}: its sessions are not remembered`, install);
  }
  const gone = h.scripts.filter((script) => !script.exists).map((script) => script.path);
  if (gone.length > 0) return fail(check, `${h.file}: hooks run ${gone.join(', ')}, which does not exist (memtrace moved or was removed)`, install);
  const elsewhere = [...new Set(h.scripts.map((script) => script.path))].filter((p) => p !== forwarder);
  if (elsewhere.length > 0)
    return warn(check, `${h.file}: hooks run another install of memtrace (${elsewhere.join(', ')}), not this one (${forwarder})`, install);
  if (h.events.length < h.expected)
    return warn(check, `${h.file}: ${h.events.length} of memtrace's ${h.expected} hooks (${h.events.join(', ')}); the others were removed`, install);
  return ok(check, `${h.events.length} hooks in ${h.file}, running ${forwarder}`);
}
