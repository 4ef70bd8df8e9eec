import fs from 'node:fs';
import path from 'node:path';
import { createLogger, type Logger } from '../log.js';

/** The worker's local log: full detail in DATA_DIR/logs/worker.log, warnings echoed to stderr. */
export function createFileLogger(dataDir: string, stderr: { write(chunk: string): unknown }): Logger {
  const dir = path.join(dataDir, 'logs');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = fs.openSync(path.join(dir, 'worker.log'), 'a', 0o600);
  const file = createLogger({ write: (line) => fs.writeSync(fd, line) }, { minLevel: 'debug' });
  const console = createLogger({ write: (line) => stderr.write(line) }, { minLevel: 'warn' });
  return {
    debug: (m, f) => file.debug(m, f),
    info: (m, f) => file.info(m, f),
    warn: (m, f) => {
      file.warn(m, f);
      console.warn(m, f);
    },
    error: (m, f) => {
      file.error(m, f);
      console.error(m, f);
    },
  };
}
