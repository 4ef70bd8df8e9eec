import { fail, ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot, HostHooksSnapshot, InProcessFileSnapshot } from '../snapshot.js';

/**
 * memtrace's hooks in each host's user configuration: present, complete, and running a forwarder
 * that exists; for OpenCode and pi, memtrace's plugin (extension) file, of this install and version.
 */
export function checkHooks(s: DoctorSnapshot): Finding[] {
  return [...s.hooks.map((h) => hostFinding(h, s.forwarder.script.path)), ...s.inProcess.map((p) => inProcessFinding(p, s.installed))];
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

function inProcessFinding(p: InProcessFileSnapshot, installed: DoctorSnapshot['installed']): Finding {
  const check = `hooks:${p.host}`;
  const [what, aWhat] = p.host === 'opencode' ? ['plugin', 'a plugin'] : ['extension', 'an extension'];
  const install = `memtrace install --host ${p.host}`;
  if (p.state === 'unreadable')
    return fail(check, `${p.file} ${p.error ?? 'cannot be read'}: ${p.host} may not load it`, `fix the file (or remove it), then ${install}`);
  if (p.state === 'foreign')
    return warn(check, `${p.file} is ${aWhat} memtrace install did not write: memtrace's is not installed`, `move ${p.file} aside, then ${install}`);
  if (p.state === 'missing' || p.memtraceBin === null) {
    if (!p.cliOnPath) return ok(check, `no ${what} in ${p.file}; ${p.host} is not on PATH`);
    return warn(check, `${p.host} is on PATH but memtrace's ${what} is not in ${p.file}: its sessions are not remembered`, install);
  }
  const bin = p.memtraceBin.path;
  if (!p.memtraceBin.exists)
    return fail(
      check,
      `${p.file}: the ${what} spools through ${bin}, which does not exist (memtrace moved or was removed): with no worker, events are lost`,
      install,
    );
  const ours = `${installed.packageRoot}/bin/memtrace.cjs`;
  if (bin !== ours) return warn(check, `${p.file}: the ${what} runs another install of memtrace (${bin}), not this one (${ours})`, install);
  if (p.version !== installed.version)
    return warn(check, `${p.file}: the ${what} is memtrace ${p.version ?? 'unknown'}'s; this is ${installed.version}`, `${install} (it rewrites the file)`);
  return ok(check, `memtrace's ${what} in ${p.file} (memtrace ${p.version})`);
}
