import path from 'node:path';
import { shellQuote } from '../../src/install/hook-definitions.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The hook command `memtrace install` writes for this checkout and this node, spelled out: the
 * data dir's native build run by the host's shell itself (`--direct`), else the script.
 */
export function installedHookCommand(dataDir: string, host: string, event: string): string {
  const native = shellQuote(path.join(dataDir, 'bin', 'hook'));
  const node = shellQuote(process.execPath);
  const args = `${host} ${event} settings`;
  return (
    `[ -O ${native} ] && [ -x ${native} ] && exec ${native} --direct ${shellQuote(dataDir)} ${args} ${shellQuote(path.join(ROOT, 'bin'))} ${node}; ` +
    `exec sh ${shellQuote(path.join(ROOT, 'bin/memtrace-hook'))} ${args} ${node}`
  );
}
