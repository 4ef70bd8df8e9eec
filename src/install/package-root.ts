/**
 * Where memtrace itself is installed, found from this module's own location: the nearest folder
 * above it with a package.json named memtrace. Works from src/install/ under tsx and from a
 * compiled dist/install/ in an installed package alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from './hook-definitions.js';

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

export const HOOK_ENTRY = path.join('bin', 'memtrace.cjs');

/**
 * The shell prefix a settings-file hook runs: this node and this package's entry, both absolute,
 * so the hook works whatever PATH Claude Code was started with.
 */
export function settingsInvoke(nodePath: string, packageRoot: string): string {
  return `${shellQuote(nodePath)} ${shellQuote(path.join(packageRoot, HOOK_ENTRY))}`;
}

/** npx runs packages from a cache that npm may clean: hooks pointing there break later. */
export function isEphemeralInstall(packageRoot: string): boolean {
  return packageRoot.split(/[\\/]/).includes('_npx');
}
