import fs from 'node:fs';
import path from 'node:path';

/**
 * The install's secret for the worker API. Loopback is shared by every account on a machine,
 * so the API needs more than a port: only a process that can read DATA_DIR/auth-token (0600)
 * can call it. Kept to node:fs so the hook path stays cheap.
 */
const AUTH_TOKEN_FILE = 'auth-token';

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
