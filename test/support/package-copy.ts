import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * An install of this checkout's built package at `version`, made quickly: its bin/ and dist/
 * copied into `dir`, package.json with that version, node_modules linked to this checkout's (a
 * packed, npm-installed copy is test/e2e/package-upgrade.test.ts's job). Returns the install's
 * bin folder, what its hooks name to the worker. Needs `npm run build` (the tests' pretest).
 */
export function installCopy(dir: string, version: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const sub of ['bin', 'dist']) fs.cpSync(path.join(ROOT, sub), path.join(dir, sub), { recursive: true });
  setVersion(dir, version);
  if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return path.join(dir, 'bin');
}

/** Rewrites the install's package.json with another version: its files changed under the running worker, as an upgrade in place does. */
export function setVersion(dir: string, version: string): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
}
