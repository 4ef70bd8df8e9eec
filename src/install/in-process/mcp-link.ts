import type { Builtins } from './builtins.js';
import type { LinkSettings } from './settings.js';

/**
 * memtrace's MCP tools (search, timeline, get_observations) for a host without MCP (pi): one
 * short MCP conversation per call, spoken to the MCP server inside the worker over the data
 * dir's socket (`GET /mcp` upgraded, newline-delimited JSON-RPC: docs/interfaces.md#hook-socket),
 * or, with no worker, to the Node stdio server (`memtrace mcp`) it would otherwise be. Both are
 * the same server, so the tools answer the same text as they do through MCP on every other host.
 */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** Newline-delimited JSON-RPC over whatever carries the bytes: the caller feeds what it reads. */
interface LineStream {
  write(line: string): void;
  onLine(listener: (line: string) => void): void;
  onClose(listener: () => void): void;
  close(): void;
  feed(chunk: string): void;
  closed(): void;
}

const UPGRADE = 'GET /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: Upgrade\r\nupgrade: memtrace-mcp\r\n\r\n';
const CALL_TIMEOUT_MS = 30_000;

function lineStream(write: (data: string) => void, end: () => void): LineStream {
  let buffer = '';
  const lines: Array<(line: string) => void> = [];
  const closes: Array<() => void> = [];
  return {
    write: (line) => write(`${line}\n`),
    onLine: (listener) => lines.push(listener),
    onClose: (listener) => closes.push(listener),
    close: end,
    feed(chunk) {
      buffer += chunk;
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.trim() !== '') for (const listener of lines) listener(line);
      }
    },
    closed() {
      for (const listener of closes.splice(0)) listener();
    },
  };
}

/** The worker's MCP stream over its socket, or null when no worker takes the upgrade. */
function overSocket(settings: LinkSettings, node: Builtins): Promise<LineStream | null> {
  return new Promise((resolve) => {
    const socket = node.net.connect({ path: `${settings.dataDir}/worker.sock` });
    let head = '';
    let upgraded = false;
    const stream = lineStream(
      (data) => socket.write(data),
      () => socket.destroy(),
    );
    const fail = () => {
      if (upgraded) return;
      socket.destroy();
      resolve(null);
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(UPGRADE));
    socket.on('data', (chunk: string) => {
      if (upgraded) return stream.feed(chunk);
      head += chunk;
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      if (!/^HTTP\/1\.1 101 /.test(head)) return fail();
      upgraded = true;
      resolve(stream);
      const rest = head.slice(end + 4);
      if (rest !== '') stream.feed(rest);
    });
    socket.on('error', fail);
    socket.on('close', () => (upgraded ? stream.closed() : fail()));
  });
}

/** The Node stdio server, for when no worker runs. */
function overStdio(settings: LinkSettings, node: Builtins): LineStream {
  const child = node.childProcess.spawn(settings.node, [settings.memtraceBin, 'mcp'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...settings.env, MEMTRACE_DATA_DIR: settings.dataDir, NODE_EXTRA_CA_CERTS: '' },
  });
  const stream = lineStream(
    (data) => child.stdin?.write(data),
    () => child.kill(),
  );
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => stream.feed(chunk));
  child.stdin?.on('error', () => undefined);
  child.on('error', () => stream.closed());
  child.on('close', () => stream.closed());
  return stream;
}

/** Calls one of memtrace's MCP tools by its MCP name (`search`, …) and returns its text. */
export async function callMemoryTool(settings: LinkSettings, node: Builtins, tool: string, args: unknown, signal?: AbortSignal): Promise<ToolAnswer> {
  const stream = (await overSocket(settings, node)) ?? overStdio(settings, node);
  return new Promise<ToolAnswer>((resolve) => {
    let done = false;
    const finish = (answer: ToolAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      stream.close();
      resolve(answer);
    };
    const abort = () => finish({ text: 'Cancelled.', isError: true });
    const timer = setTimeout(() => finish({ text: `memtrace's memory did not answer within ${CALL_TIMEOUT_MS / 1000} s.`, isError: true }), CALL_TIMEOUT_MS);
    signal?.addEventListener('abort', abort);
    stream.onClose(() => finish({ text: "memtrace's memory is not reachable (no worker, and `memtrace mcp` did not answer).", isError: true }));
    stream.onLine((line) => {
      let message: { id?: unknown; result?: { content?: Array<{ type?: string; text?: string }>; isError?: boolean }; error?: { message?: string } };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.id === 1) {
        stream.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
        stream.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: args ?? {} } }));
      } else if (message.id === 2) {
        if (message.error) return finish({ text: `memtrace: ${message.error.message ?? 'the tool call failed'}`, isError: true });
        const text = (message.result?.content ?? [])
          .filter((c) => c.type === 'text')
          .map((c) => c.text ?? '')
          .join('\n');
        finish({ text, isError: message.result?.isError === true });
      }
    });
    stream.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `memtrace-${settings.host}`, version: '1' } },
      }),
    );
  });
}
