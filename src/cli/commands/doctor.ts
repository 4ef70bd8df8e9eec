import { EXIT_OK, parseCommandArgs, type Command } from '../command.js';
import { CHECKS } from '../doctor/checks/index.js';
import { doctorExitCode, fail, type Finding } from '../doctor/finding.js';
import { gatherSnapshot } from '../doctor/gather.js';

const USAGE = `usage: memtrace doctor [--json]

Checks what otherwise goes wrong unseen, and names the one step that fixes each finding:
versions (installed, running, the store's), the worker and its socket, the hook forwarder,
memtrace's hooks in each agent's config, which observer runs and why, the daily budget and
today's spend, the store (it opens; PRAGMA quick_check), free disk and the store's size budget,
hook events waiting in the spool, and telemetry. Reads only: nothing is started, created or
changed.

Exit 0 when no finding fails (warnings included), 1 when something needs you.

options:
  --json      {"findings":[{"check","status":"ok"|"warn"|"fail","detail","fix"}]} (fix: null when ok)
  -h, --help  show this help`;

const MARK: Record<Finding['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check the install, worker, hooks, store, observer, budget and telemetry; name each fix',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' } });
    const snapshot = await gatherSnapshot(io, Date.now());
    const findings = CHECKS.flatMap((check) => {
      try {
        return check(snapshot);
      } catch (error) {
        // A check that trips on something unforeseen is itself a finding; the others still run.
        return [fail(check.name || 'check', `this check failed: ${error instanceof Error ? error.message : String(error)}`, 'report it, with this output')];
      }
    });
    if (values.json) io.stdout.write(`${JSON.stringify({ findings }, null, 2)}\n`);
    else {
      for (const f of findings) {
        io.stdout.write(`${MARK[f.status]}  ${f.check.padEnd(17)} ${f.detail}\n`);
        if (f.fix !== null) io.stdout.write(`${' '.repeat(24)}fix: ${f.fix}\n`);
      }
      const failed = findings.filter((f) => f.status === 'fail').length;
      const warned = findings.filter((f) => f.status === 'warn').length;
      io.stdout.write(
        failed > 0
          ? `\n${failed} check(s) failed, ${warned} warning(s): memtrace needs you (fixes above).\n`
          : `\nnothing failed${warned > 0 ? `; ${warned} warning(s) worth reading` : ''}.\n`,
      );
    }
    return doctorExitCode(findings) === 0 ? EXIT_OK : 1;
  },
};
