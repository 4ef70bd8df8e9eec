import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFileAtomic } from './private-files.js';

/**
 * The newest memtrace that ran a worker on this data dir: DATA_DIR/worker-package.json,
 * `{version, bin}` (bin: the folder of its forwarder and bin/memtrace.cjs). Whoever starts a
 * worker later (a hook of an older install, after a reboot) starts that one when it is still
 * installed and newer than itself, so two installs never take turns and an older one never
 * meets a store the newer one migrated.
 */
const FILE = 'worker-package.json';

export interface WorkerPackage {
  version: string;
  bin: string;
}

export function readWorkerPackage(dataDir: string): WorkerPackage | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8')) as Partial<WorkerPackage>;
    return typeof value.version === 'string' && typeof value.bin === 'string' ? { version: value.version, bin: value.bin } : null;
  } catch {
    return null;
  }
}

export function writeWorkerPackage(dataDir: string, pkg: WorkerPackage): void {
  writePrivateFileAtomic(path.join(dataDir, FILE), `${JSON.stringify(pkg)}\n`);
}
