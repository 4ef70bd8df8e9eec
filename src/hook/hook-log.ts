import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a hook's warnings go on hosts that show a hook's stderr to the user (Gemini CLI prints it
 * when stdout is empty): DATA_DIR/logs/hooks.log, private like every file in the data dir.
 * Never throws: a hook must not fail over its own log.
 */
export function appendHookLog(dataDir: string, line: string, nowMs: number): void {
  try {
    const dir = path.join(dataDir, 'logs');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'hooks.log');
    fs.appendFileSync(file, `${new Date(nowMs).toISOString()} ${line}\n`, { mode: 0o600 });
  } catch {
    /* nowhere left to say it */
  }
}
