import fs from 'node:fs';
import path from 'node:path';

/**
 * An installed memtrace, as a hook names it: the folder of its forwarder (`<package>/bin`, where
 * `memtrace-hook` and `memtrace.cjs` live). Its version is what its package.json says now: an
 * upgrade in place (npm, a project install, a plugin update) changes that file under the same
 * folder, and a running worker learns of it from the next hook.
 */
export interface InstalledPackage {
  bin: string;
  version: string;
}

/** The memtrace installed at `bin`, or null when that folder holds no runnable memtrace. */
export function readInstalledPackage(bin: string): InstalledPackage | null {
  if (!path.isAbsolute(bin)) return null;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(bin, '..', 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    if (manifest.name !== 'memtrace' || typeof manifest.version !== 'string') return null;
    if (!fs.statSync(path.join(bin, 'memtrace.cjs')).isFile()) return null;
    return { bin: path.normalize(bin), version: manifest.version };
  } catch {
    return null;
  }
}

/**
 * readInstalledPackage for a hot path: each folder's package.json is stat'ed on every call and
 * read again only when it changed (another inode, size or mtime), so a worker can ask on every
 * hook at the cost of one stat.
 */
export function createPackageWatch(): (bin: string) => InstalledPackage | null {
  const seen = new Map<string, { key: string; pkg: InstalledPackage | null }>();
  return (bin) => {
    let key: string;
    try {
      const stat = fs.statSync(path.join(bin, '..', 'package.json'));
      key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      seen.delete(bin);
      return null;
    }
    const known = seen.get(bin);
    if (known?.key === key) return known.pkg;
    const pkg = readInstalledPackage(bin);
    // Bounded: a data dir is reached by a handful of installs, never by many.
    if (seen.size > 64) seen.clear();
    seen.set(bin, { key, pkg });
    return pkg;
  };
}
