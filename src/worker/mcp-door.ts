import type { Duplex } from 'node:stream';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { accessIncrements, withMemorySpans, type MemoryAccessSink } from '../memory/index.js';
import type { Store } from '../store/index.js';

/**
 * How the bridge asks for the MCP stream on the worker's socket (docs/interfaces.md#hook-socket):
 * `GET /mcp` with `Connection: Upgrade` and `Upgrade: memtrace-mcp`, answered `101`; from then on
 * the connection carries newline-delimited JSON-RPC both ways, exactly what a stdio MCP server
 * reads and writes.
 */
const MCP_UPGRADE_PATH = '/mcp';
const MCP_UPGRADE_PROTOCOL = 'memtrace-mcp';

type McpModule = typeof import('../mcp/index.js');

export interface McpDoorDeps {
  /** The worker's own store: already open, its pages warm. */
  store: Store;
  recordCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void;
  clock: Clock;
  log: Logger;
  /** The worker's environment: its OTEL_* variables decide whether memory spans are exported. */
  env: Record<string, string | undefined>;
}

export interface McpDoor {
  upgrade(request: { url: string; headers: Readonly<Record<string, string | undefined>> }, stream: Duplex, head: Buffer): void;
  /** Loads the SDK ahead of the first session, when the worker has nothing else to do. */
  preload(): void;
}

const NOT_HERE = 'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
const SWITCHING = `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${MCP_UPGRADE_PROTOCOL}\r\n\r\n`;

/**
 * The worker's MCP door: one SDK server per bridge connection over the worker's own store. The
 * socket lives in the 0700 data dir, so whoever connects is the data dir's owner, as for hooks:
 * no token. Searches are counted in memory_access_rollup (via `mcp`) through the worker's telemetry,
 * and traced as GenAI memory spans when OpenTelemetry is configured.
 */
export function createMcpDoor(deps: McpDoorDeps): McpDoor {
  // Counted and traced as the Node stdio server does (openMemoryStore), so an MCP call is one span whichever serves it.
  const access: MemoryAccessSink = withMemorySpans(
    { record: (via, used, nowMs) => deps.recordCounters('memory_access_rollup', { via }, accessIncrements(used), nowMs) },
    deps.env,
  );
  const memory = () => ({ store: deps.store, access });
  // The MCP server's module is loaded on the first session (or `preload`), never on a hook's path.
  let module: Promise<McpModule> | null = null;
  const load = () => {
    module ??= import('../mcp/index.js');
    return module;
  };
  let open = 0;

  return {
    upgrade(request, stream, head) {
      const protocol = String(request.headers.upgrade ?? '').toLowerCase();
      if (request.url !== MCP_UPGRADE_PATH || protocol !== MCP_UPGRADE_PROTOCOL) {
        stream.end(NOT_HERE);
        return;
      }
      // Nothing is read until the server listens; bytes that came with the request go first.
      stream.pause();
      if (head.length > 0) stream.unshift(head);
      open += 1;
      stream.once('close', () => {
        open -= 1;
      });
      load()
        .then((mcp) => (stream.destroyed ? null : mcp.serveMcpStream(stream, { memory, clock: deps.clock })))
        .then((session) => {
          if (!session) return;
          stream.write(SWITCHING);
          stream.resume();
          deps.log.debug('an MCP session opened', { open });
        })
        .catch((error: unknown) => {
          deps.log.warn('could not open an MCP session', { error: String(error) });
          stream.destroy();
        });
    },
    preload() {
      // Once: a module that failed to load is said once, not on every tick.
      if (module !== null) return;
      load().catch((error: unknown) => deps.log.warn('could not load the MCP server', { error: String(error) }));
    },
  };
}
