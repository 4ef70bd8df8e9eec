/**
 * A host that goes away while memtrace's stdio MCP server (`memtrace mcp`, what the bridge hands
 * over to with no worker) still has answers to write: the write fails with EPIPE. The server had
 * no handler for that and died on an unhandled 'error' event, exit 1 and a stack trace on stderr.
 * The session is over, which is no error: it now ends quietly, exit 0.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/memtrace.cjs');
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
};

describe('memtrace mcp whose host went away', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('ends quietly when it cannot write its answer, though stdin is still open', async () => {
    temp = makeTempDir();
    const server = spawn(process.execPath, [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_TELEMETRY: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    // The host's end of the server's stdout is gone before the answer comes; its stdin stays open.
    server.stdout.destroy();
    server.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/Unhandled 'error' event|EPIPE/);
    server.stdin.destroy();
  });
});
