import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/**
 * The packed package and the package managers that install it, for the package-manager e2e test
 * and bench: the tarball `npm pack` makes, the real pnpm from npm (into a scratch prefix, from
 * npm's cache when it is there), and a loopback mirror that serves better-sqlite3's prebuilt
 * addon the way its GitHub release does (prebuild-install's `npm_config_better_sqlite3_binary_host`).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const PNPM_VERSION = '12.21.0';
export const QUIET_NPM = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const DRIVER_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;

export function packTarball(into: string): string {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', into], { cwd: ROOT, encoding: 'utf8' })) as Array<{
    filename: string;
  }>;
  return path.join(into, packed[0]!.filename);
}

/** pnpm PNPM_VERSION installed into `prefix`; returns its bin. */
export function installPnpm(prefix: string): string {
  execFileSync('npm', ['install', '--global', '--prefix', prefix, `pnpm@${PNPM_VERSION}`, '--prefer-offline', '--loglevel=error'], {
    env: { ...process.env, ...QUIET_NPM },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  return path.join(prefix, 'bin', 'pnpm');
}

/** A command to its end without blocking this process (the mirror below lives in it). */
export function runAsync(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface PrebuildMirror {
  url: string;
  /** Every path asked for. */
  requests: string[];
  close(): Promise<void>;
}

/** Serves the addon `npm ci` built here as better-sqlite3's release asset for this Node. */
export async function startPrebuildMirror(workDir: string): Promise<PrebuildMirror> {
  const staging = path.join(workDir, 'prebuild');
  fs.mkdirSync(path.join(staging, 'build', 'Release'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), path.join(staging, 'build/Release/better_sqlite3.node'));
  const asset = path.join(workDir, 'prebuild.tar.gz');
  execFileSync('tar', ['-czf', asset, '-C', staging, 'build']);
  const wanted = `/v${DRIVER_VERSION}/better-sqlite3-v${DRIVER_VERSION}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url !== wanted) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    fs.createReadStream(asset).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A PATH that holds this node and nothing else: no compiler, make or python. */
export function nodeOnlyPath(workDir: string): string {
  const dir = path.join(workDir, 'node-only');
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir);
    fs.symlinkSync(process.execPath, path.join(dir, 'node'));
  }
  return dir;
}

export const DRIVER = { version: DRIVER_VERSION };
