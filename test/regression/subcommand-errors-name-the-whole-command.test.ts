import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';

/**
 * Found using `memtrace share add 'not a url'` from an installed package: the usage error began
 * `memtrace add:`, a command that does not exist. A subcommand's error names the whole command.
 */
describe('a subcommand’s usage error', () => {
  it('names the command group and the subcommand the user typed', async () => {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: '/nonexistent/memtrace-test' } });
    expect(await main(['share', 'add', 'not a url'], c.io)).toBe(2);
    expect(c.stderr()).toMatch(/^memtrace share add: not a Postgres URL/);
  });
});
