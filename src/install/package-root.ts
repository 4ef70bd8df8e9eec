/**
 * Where memtrace itself is installed, found from this module's own location: the nearest folder
 * above it with a package.json named memtrace. Works from src/install/ under tsx and from a
 * compiled dist/install/ in an installed package alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote, type Forwarder } from './hook-definitions.js';
import { NATIVE_FORWARDER_LINK } from './native-forwarder.js';

export function findPackageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = path.dirname(path.resolve(from));
  for (;;) {
    if (isMemtracePackage(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json named memtrace above ${path.dirname(path.resolve(from))}`);
    dir = parent;
  }
}

function isMemtracePackage(file: string): boolean {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown }).name === 'memtrace';
  } catch {
    return false;
  }
}

export const HOOK_FORWARDER = path.join('bin', 'memtrace-hook');

/**
 * The forwarder a settings-file hook runs: this package's script and this node, both absolute,
 * so the hook works whatever PATH the agent host was started with; and, given the data dir
 * install builds into, its native build first.
 */
export function settingsForwarder(nodePath: string, packageRoot: string, dataDir: string | null): Forwarder {
  const bin = path.join(packageRoot, path.dirname(HOOK_FORWARDER));
  return {
    script: shellQuote(path.join(packageRoot, HOOK_FORWARDER)),
    bin: shellQuote(bin),
    node: shellQuote(nodePath),
    native: dataDir === null ? null : { setup: '', file: shellQuote(path.join(dataDir, 'bin', NATIVE_FORWARDER_LINK)), dataDir: shellQuote(dataDir) },
  };
}

/** npx runs packages from a cache that npm may clean: hooks pointing there break later. */
export function isEphemeralInstall(packageRoot: string): boolean {
  return packageRoot.split(/[\\/]/).includes('_npx');
}
