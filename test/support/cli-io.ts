import { Readable } from 'node:stream';
import type { CliIO } from '../../src/cli/command.js';

/** An in-process CliIO that collects what a command prints. */
export function captureIO(options: { stdin?: string | Buffer | Readable; env?: Record<string, string | undefined>; cwd?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const stdin = options.stdin instanceof Readable ? options.stdin : Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const io: CliIO = {
    stdin,
    stdout: {
      write: (s: string) => {
        stdout += s;
        return true;
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s;
        return true;
      },
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}
