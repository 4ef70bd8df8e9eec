import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What a command may touch; passed in so commands run in-process under test. */
export interface CliIO {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text shown by --help and after a usage error. */
  usage: string;
  run(args: string[], io: CliIO): Promise<number>;
}

/** A wrong flag or argument: main prints the reason and the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs in strict mode, with its errors turned into UsageError. */
export function parseCommandArgs<T extends OptionsConfig>(args: string[], options: T, { maxPositionals = 0 }: { maxPositionals?: number } = {}) {
  const parsed = (() => {
    try {
      return parseArgs({ args, options, strict: true, allowPositionals: maxPositionals > 0 });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
    }
  })();
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[maxPositionals]}'`);
  }
  return parsed;
}

/** Parses an integer flag value with an exact message naming the flag. */
export function parseIntegerFlag(name: string, raw: string | undefined, { min, max }: { min: number; max: number }): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${name} takes a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** A command with subcommands (`telemetry status`, `dashboards export`, …). */
export function commandGroup(name: string, summary: string, subcommands: Command[]): Command {
  const usage = [
    `usage: memtrace ${name} <command> [options]`,
    '',
    summary,
    '',
    'commands:',
    ...subcommands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`),
    '',
    `Run 'memtrace ${name} <command> --help' for a command's options.`,
  ].join('\n');
  return {
    name,
    summary,
    usage,
    async run(args, io) {
      const [first, ...rest] = args;
      if (first === undefined || first === '--help' || first === '-h') {
        io.stdout.write(`${usage}\n`);
        return first === undefined ? EXIT_USAGE : EXIT_OK;
      }
      const sub = subcommands.find((c) => c.name === first);
      if (!sub) throw new UsageError(`unknown command '${name} ${first}'`);
      // Its errors name the whole command the user typed (`memtrace share add: …`).
      return runCommand({ ...sub, name: `${name} ${sub.name}` }, rest, io);
    },
  };
}

/** Runs one command with the shared --help and usage-error handling. */
export async function runCommand(command: Command, args: string[], io: CliIO): Promise<number> {
  if (command.name !== '' && wantsHelp(args) && !args.slice(0, 1).some((a) => !a.startsWith('-'))) {
    io.stdout.write(`${command.usage}\n`);
    return EXIT_OK;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`memtrace ${command.name}: ${error.message}\n\n${command.usage}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
