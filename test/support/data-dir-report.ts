import fs from 'node:fs';
import path from 'node:path';

/** What a data dir holds about a worker that did not come: its files, the start schedule, the worker's last output. */
export function dataDirReport(dataDir: string): string {
  const read = (file: string, tail = 2_000) => {
    try {
      const text = fs.readFileSync(path.join(dataDir, file), 'utf8');
      return text.slice(-tail);
    } catch (error) {
      return `(${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
    }
  };
  const list = (dir: string) => {
    try {
      return fs.readdirSync(path.join(dataDir, dir)).join(', ');
    } catch (error) {
      return `(${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
    }
  };
  return [
    `data dir: ${list('.')}`,
    `spool: ${list('spool')}`,
    `logs: ${list('logs')}`,
    `worker-start.json: ${read('worker-start.json')}`,
    `logs/worker.out: ${read(path.join('logs', 'worker.out'))}`,
  ].join('\n');
}
