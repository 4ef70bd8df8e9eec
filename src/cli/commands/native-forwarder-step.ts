import os from 'node:os';
import { loadWorkerConfig } from '../../config.js';
import { buildNativeForwarder, findPackageRoot, runProgram, settingsForwarder } from '../../install/index.js';
import type { Forwarder } from '../../install/hook-definitions.js';
import type { CliIO } from '../command.js';

/**
 * The data dir install builds the native forwarder into, which the hook commands name. Only the
 * data dir matters here: another setting the worker would refuse must not cost the build.
 */
function forwarderDataDir(io: CliIO): ReturnType<typeof loadWorkerConfig> {
  return loadWorkerConfig({ MEMTRACE_DATA_DIR: io.env.MEMTRACE_DATA_DIR }, io.env.HOME || io.env.USERPROFILE || os.homedir());
}

/** What the hook commands install writes run: this package's forwarder and node, and the native build in this data dir first. */
export function installedForwarder(packageRoot: string, io: CliIO): Forwarder {
  const loaded = forwarderDataDir(io);
  return settingsForwarder(process.execPath, packageRoot, loaded.ok ? loaded.config.dataDir : null);
}

/**
 * The last step of `memtrace install`: build the native hook forwarder for this data dir, and say
 * which forwarder the hooks will start. Never fails the install: the Perl and shell forwarders do
 * the same work, a few milliseconds slower per firing.
 */
export function buildForwarderStep(io: CliIO): void {
  const loaded = forwarderDataDir(io);
  if (!loaded.ok) {
    io.stderr.write(`memtrace install: warning: no native hook forwarder built (${loaded.errors.join('; ')}); the hooks use perl or curl.\n`);
    return;
  }
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
