import fs from 'node:fs';
import path from 'node:path';
import { openPrivateFile } from '../data-dir/index.js';
import { createLogger, type Logger } from '../log.js';

/** The worker's local log: full detail in DATA_DIR/logs/worker.log, warnings echoed to stderr. */
export function createFileLogger(dataDir: string, stderr: { write(chunk: string): unknown }): Logger {
  const fd = openPrivateFile(path.join(dataDir, 'logs', 'worker.log'), 'a');
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
