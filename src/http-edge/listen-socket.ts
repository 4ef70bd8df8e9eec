import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { createChunkedDecoder, headEnd, parseRequestHead, type BodyFraming, type RequestHead } from './http1-request.js';

/** How long a request already being served may take to finish when the socket closes. */
const REQUEST_GRACE_MS = 5_000;
/**
 * How long a closing socket, its name already gone, keeps accepting: a client that connected just
 * before (queued, its request already written) is served, not reset — a hook forwarder whose
 * request was written believes the worker has its event.
 */
const ACCEPT_QUEUED_MS = 200;

export interface ListeningSocket {
  path: string;
  close(): Promise<void>;
}

/** What answers one request: its body as it arrives, then the reply. */
export interface SocketExchange {
  push(chunk: Buffer): void;
  /** `complete` is false when the client went away, or broke the framing, before the body ended. */
  end(complete: boolean): SocketReply;
}

export interface SocketReply {
  status: number;
  headers?: Readonly<Record<string, string>>;
  body: string;
}

export type SocketHandler = (request: RequestHead) => SocketExchange;

/**
 * Takes a connection that asked to leave HTTP (`Connection: Upgrade`): the handler answers it
 * and owns the stream from then on. `head` holds whatever bytes came after the request's head.
 */
export type UpgradeHandler = (request: RequestHead, stream: Duplex, head: Buffer) => void;

/** Longest request head taken (Node's own default). */
const MAX_HEAD_BYTES = 16 * 1024;
/** A request must have sent its head within this, and its whole body within the second (Node's defaults). */
const HEAD_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 300_000;
const SWEEP_MS = 30_000;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  100: 'Continue',
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  404: 'Not Found',
  409: 'Conflict',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  507: 'Insufficient Storage',
};

/**
 * Serves one request per connection on a Unix socket inside `dir` (0600, in a folder that must
 * already be private), with a small HTTP/1.1 reader of its own rather than node:http: every tool
 * call of every agent opens a connection here, and node:http's request and response objects
 * cost more CPU than the worker's whole handling of the event. Each connection carries one
 * request and is closed after the reply (every client asks for that). A socket file left there by
 * a dead process is replaced: the caller holds the data dir's lock, so no live worker owns it.
 * An address too long for a Unix socket is bound relative to `dir`. With `upgrade`, connections
 * that ask to leave HTTP go to it; without, they are refused (closed). Closing first removes the
 * socket's name (a later client finds none and spools), accepts what was already queued for
 * ACCEPT_QUEUED_MS, lets the requests being served finish (at most REQUEST_GRACE_MS; each
 * event is committed before its reply) and ends every upgraded connection at once.
 */
export function listenUnixSocket(
  handler: SocketHandler,
  dir: string,
  name: string,
  { pathLimit, upgrade }: { pathLimit: number; upgrade?: UpgradeHandler },
): Promise<ListeningSocket> {
  const full = path.join(dir, name);
  fs.rmSync(full, { force: true });
  const open = new Map<net.Socket, { startedMs: number; headDone: boolean }>();
  const upgraded = new Set<Duplex>();
  // Half-open allowed, as node:http has it: a client that ends its side after the request still gets the reply.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const entry = { startedMs: performance.now(), headDone: false };
    open.set(socket, entry);
    socket.once('close', () => open.delete(socket));
    serveConnection(socket, handler, {
      headDone: () => {
        entry.headDone = true;
      },
      upgrade: upgrade
        ? (request, head) => {
            open.delete(socket);
            upgraded.add(socket);
            socket.once('close', () => upgraded.delete(socket));
            upgrade(request, socket, head);
          }
        : null,
    });
  });
  // A stalled client (a host frozen mid-write) is let go as node:http would, by one sweep for all.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, entry] of open) {
      if (now - entry.startedMs > (entry.headDone ? REQUEST_TIMEOUT_MS : HEAD_TIMEOUT_MS)) socket.destroy();
    }
  }, SWEEP_MS);
  sweep.unref();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      fs.chmodSync(full, 0o600);
      resolve({
        path: full,
        close: async () => {
          clearInterval(sweep);
          // The caller still holds the data dir's lock: the name is this server's, no newer one's.
          fs.rmSync(full, { force: true });
          await new Promise((settle) => setTimeout(settle, ACCEPT_QUEUED_MS));
          await new Promise<void>((done) => {
            // Every open connection carries one request: a hook mid-request is let finish, up to a bound.
            const cut = setTimeout(() => {
              for (const socket of open.keys()) socket.destroy();
            }, REQUEST_GRACE_MS);
            server.close(() => {
              clearTimeout(cut);
              done();
            });
            for (const stream of upgraded) stream.destroy();
          });
        },
      });
    });
    if (Buffer.byteLength(full) <= pathLimit) server.listen(full);
    else {
      // bind(2) resolves a relative name against the working directory, synchronously.
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        server.listen(name);
      } finally {
        process.chdir(cwd);
      }
    }
  });
}

/** Reads one request off the connection, hands it to the handler and writes its reply. */
function serveConnection(
  socket: net.Socket,
  handler: SocketHandler,
  hooks: { headDone(): void; upgrade: ((request: RequestHead, head: Buffer) => void) | null },
): void {
  let pending: Buffer | null = null;
  let exchange: SocketExchange | null = null;
  let body: ((chunk: Buffer) => BodyRead) | null = null;
  let answered = false;
  socket.on('error', () => undefined);
  /**
   * `drained`: the whole request was read and nothing came after it, so the connection is closed
   * as soon as the reply is written: the client reads it, then end of stream, without this side
   * waiting for the client's own end (one wake-up, a read and a shutdown less per hook). Otherwise
   * (a refusal, a client gone) it ends gracefully: closing with unread bytes would reset the
   * client before it read the reply.
   */
  const answer = (reply: SocketReply, drained = false) => {
    answered = true;
    socket.off('data', onData);
    if (!drained) {
      socket.end(replyBytes(reply));
      return;
    }
    socket.write(replyBytes(reply));
    // Handed to the kernel whole (a reply fits the socket's buffer): closing now loses none of it.
    if (socket.writableLength === 0) socket.destroy();
    else socket.end();
  };
  const finish = (complete: boolean, drained = false) => {
    if (answered || exchange === null) return;
    let reply: SocketReply;
    try {
      reply = exchange.end(complete);
    } catch (error) {
      reply = { status: 500, body: JSON.stringify({ error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } }) };
    }
    answer(reply, drained);
  };
  const refuse = (status: number, reason: string) => answer({ status, body: JSON.stringify({ error: { code: 'bad_request', message: reason } }) });
  const onData = (chunk: Buffer) => {
    if (body !== null) {
      const read = body(chunk);
      if (read !== 'more') finish(true, read === 'done');
      return;
    }
    pending = pending === null ? chunk : Buffer.concat([pending, chunk]);
    const end = headEnd(pending, Math.max(0, pending.length - chunk.length - 3));
    if (end === -1) {
      if (pending.length > MAX_HEAD_BYTES) refuse(431, 'the request head is too large');
      return;
    }
    if (end > MAX_HEAD_BYTES) return refuse(431, 'the request head is too large');
    const parsed = parseRequestHead(pending.toString('latin1', 0, end));
    const rest = pending.subarray(end);
    pending = null;
    if (!parsed.ok) return refuse(parsed.status, parsed.reason);
    hooks.headDone();
    const { head, framing } = parsed;
    if (head.headers.upgrade !== undefined && /\bupgrade\b/i.test(head.headers.connection ?? '')) {
      socket.off('data', onData);
      if (hooks.upgrade) hooks.upgrade(head, rest);
      else socket.destroy();
      return;
    }
    if (/^100-continue$/i.test(head.headers.expect ?? '')) socket.write('HTTP/1.1 100 Continue\r\n\r\n');
    exchange = handler(head);
    const reader = bodyReader(framing, exchange, (reason) => {
      // A body that breaks its framing is as good as cut off: what came goes to the handler.
      void reason;
      finish(false);
    });
    body = reader;
    const read = reader(rest);
    if (read !== 'more') finish(true, read === 'done');
  };
  socket.on('data', onData);
  socket.once('end', () => finish(false));
  socket.once('close', () => finish(false));
}

/** Where a request's body stands: more to come, complete, or complete with bytes after it (which only a graceful end leaves unread safely). */
type BodyRead = 'more' | 'done' | 'overrun';

/** Feeds body bytes to the exchange and says where the body stands. */
function bodyReader(framing: BodyFraming, exchange: SocketExchange, broken: (reason: string) => void): (chunk: Buffer) => BodyRead {
  const ended = (extra: number): BodyRead => (extra === 0 ? 'done' : 'overrun');
  if (framing.kind === 'none') return (chunk) => ended(chunk.length);
  if (framing.kind === 'length') {
    let left = framing.bytes;
    return (chunk) => {
      const take = chunk.subarray(0, left);
      if (take.length > 0) exchange.push(take);
      left -= take.length;
      return left === 0 ? ended(chunk.length - take.length) : 'more';
    };
  }
  const decoder = createChunkedDecoder();
  return (chunk) => {
    const step = decoder.push(chunk);
    for (const data of step.data) exchange.push(data);
    if (step.error !== null) broken(step.error);
    return step.done ? ended(step.extra) : 'more';
  };
}

function replyBytes(reply: SocketReply): string {
  const headers = Object.entries(reply.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${reply.status} ${STATUS_TEXT[reply.status] ?? 'Status'}\r\n${headers}content-length: ${Buffer.byteLength(reply.body)}\r\nconnection: close\r\n\r\n${reply.body}`;
}
