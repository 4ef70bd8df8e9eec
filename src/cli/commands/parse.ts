import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, type Command } from '../command.js';
import { decideObserverOutput } from '../../observer/index.js';
import { readAll } from '../read-stdin.js';

const MAX_INPUT_BYTES = 8 * 1024 * 1024;

export const parseCommand: Command = {
  name: 'parse',
  summary: 'read one observer output on stdin, print the decision as JSON',
  usage: `usage: memtrace parse [--pretty] < reply.txt

Reads one observer reply from standard input and prints the drop-or-parse decision as JSON
(outcome, class, observations, summary, skipped, skip_reason, counts). Pure: no database,
no network. Exit 0 whether the reply was parsed or dropped.

options:
  --pretty     indent the JSON
  -h, --help   show this help`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { pretty: { type: 'boolean' } });
    let reply: string;
    try {
      reply = await readAll(io.stdin, MAX_INPUT_BYTES);
    } catch (error) {
      io.stderr.write(`memtrace parse: cannot read standard input: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_FAILURE;
    }
    // The decision as docs/interfaces.md#drop-or-parse-decision prints it; which events each
    // observation names (`sources`) is provenance the worker maps to queue ids, not part of it.
    const { sources: _sources, ...decision } = decideObserverOutput(reply);
    io.stdout.write(`${JSON.stringify(decision, null, values.pretty ? 2 : undefined)}\n`);
    return EXIT_OK;
  },
};
