import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { authTokenPath, readAuthToken } from './auth-token.js';
import { writePrivateFile } from './private-files.js';

/** Creates the token on first start (exclusively, 0600), or returns the existing one. */
export function ensureAuthToken(dataDir: string): string {
  const existing = readAuthToken(dataDir);
  if (existing) return existing;
  const file = authTokenPath(dataDir);
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  writePrivateFile(temp, `${token}\n`);
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
