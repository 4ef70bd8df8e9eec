import path from 'node:path';
import { buildNativeForwarder, runProgram } from '../../src/install/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the native hook forwarder into `dataDir` as `memtrace install` does, with this machine's
 * cc; throws when it cannot, so a test meant for the native path never passes on another one.
 */
export function buildNativeForwarderInto(dataDir: string): string {
  const result = buildNativeForwarder({
    packageRoot: ROOT,
    dataDir,
    compiler: process.env.CC || 'cc',
    run: runProgram,
  });
  if (result.status === 'built' || result.status === 'present') return result.file;
  throw new Error(`the native hook forwarder was not built (${JSON.stringify(result)}): install a C compiler (cc)`);
}
