import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { loadWorkerConfig } from '../../config.js';
import { buildNativeForwarder, findPackageRoot, type RunProgram } from '../../install/index.js';
import type { CliIO } from '../command.js';

const runProgram: RunProgram = (command, args) => {
  const done = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'ignore', 'pipe'] });
  return { status: done.status, error: done.error, stderr: done.stderr ?? '' };
};

/**
 * The last step of `memtrace install`: build the native hook forwarder for this data dir, and say
 * which forwarder the hooks will start. Never fails the install: the Perl and shell forwarders do
 * the same work, a few milliseconds slower per firing.
 */
export function buildForwarderStep(io: CliIO): void {
  const home = io.env.HOME || io.env.USERPROFILE || os.homedir();
  const loaded = loadWorkerConfig(io.env, home);
  if (!loaded.ok) return;
  const compiler = io.env.CC || 'cc';
  let result: ReturnType<typeof buildNativeForwarder>;
  try {
    result = buildNativeForwarder({ packageRoot: findPackageRoot(), dataDir: loaded.config.dataDir, compiler, run: runProgram });
  } catch (error) {
    io.stderr.write(`memtrace install: warning: could not build the native hook forwarder: ${(error as Error).message}; the hooks use perl or curl.\n`);
    return;
  }
  const out = (line: string) => io.stdout.write(`${line}\n`);
  switch (result.status) {
    case 'built':
    case 'present':
      out(
        `hook forwarder: ${result.status === 'built' ? `built ${result.file} with ${compiler}` : `${result.file} (already built)`}; each hook firing starts it.`,
      );
      return;
    case 'no-compiler':
      out(`hook forwarder: no C compiler (${compiler}) found; the hooks use perl, or curl without it. With one installed, run install again for faster hooks.`);
      return;
    case 'failed':
      io.stderr.write(
        `memtrace install: warning: could not build the native hook forwarder with ${compiler} (${result.reason}); the hooks use perl or curl.\n`,
      );
  }
}
