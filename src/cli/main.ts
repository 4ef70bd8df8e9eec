import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, runCommand, type CliIO, type Command } from './command.js';
import { loadCommand, COMMAND_SUMMARIES } from './registry.js';

export const MAIN_USAGE = [
  'usage: memtrace <command> [options]',
  '',
  'commands:',
  ...COMMAND_SUMMARIES.map(([name, summary]) => `  ${name.padEnd(12)} ${summary}`),
  '',
  "Run 'memtrace <command> --help' for a command's options.",
].join('\n');

export function processIO(): CliIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`${MAIN_USAGE}\n`);
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${MAIN_USAGE}\n`);
    return EXIT_OK;
  }
  if (name === '--version' || name === '-v') {
    const { APP_VERSION } = await import('../version.js');
    io.stdout.write(`${APP_VERSION}\n`);
    return EXIT_OK;
  }
  let command: Command | undefined;
  try {
    command = await loadCommand(name);
  } catch (error) {
    io.stderr.write(`memtrace: could not load command '${name}': ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
  if (!command) {
    io.stderr.write(`memtrace: unknown command '${name}'\n\n${MAIN_USAGE}\n`);
    return EXIT_USAGE;
  }
  try {
    return await runCommand(command, rest, io);
  } catch (error) {
    io.stderr.write(`memtrace ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}
