import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The install's secret for the worker API. Loopback is shared by every account on a machine,
 * so the API needs more than a port: only a process that can read DATA_DIR/auth-token (0600)
 * can call it. Kept to node:fs so the hook path stays cheap.
 */
export const AUTH_TOKEN_FILE = 'auth-token';

export function authTokenPath(dataDir: string): string {
  return path.join(dataDir, AUTH_TOKEN_FILE);
}

/** The token, or null when the worker never started on this data dir (or the file is unreadable). */
export function readAuthToken(dataDir: string): string | null {
  try {
    const token = fs.readFileSync(authTokenPath(dataDir), 'utf8').trim();
    return token === '' ? null : token;
  } catch {
    return null;
  }
}

/** Creates the token on first start (exclusively, 0600), or returns the existing one. */
export function ensureAuthToken(dataDir: string): string {
  const existing = readAuthToken(dataDir);
  if (existing) return existing;
  const file = authTokenPath(dataDir);
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'w' });
  try {
    // link() fails if another process created the token first; then theirs wins.
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const token2 = readAuthToken(dataDir);
  if (!token2) throw new Error(`${file} exists but holds no token; remove it and start the worker again`);
  return token2;
}
