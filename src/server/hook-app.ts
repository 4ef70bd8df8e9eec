import type { RequestHead, SocketExchange, SocketHandler, SocketReply } from '../http-edge/index.js';
import type { HostCall, HostCallResult } from '../worker/host-intake.js';
import { createPayloadKeeper } from '../hosts/payload-keeper.js';
import { hookRoute } from './hook-route.js';

/**
 * What a hook may send before its payload is cut to head and tail (the agent hosts have no size
 * cap of their own: a Bash printing megabytes, an Edit carrying the whole file twice). The event
 * is still stored, shortened; only a payload beyond this is kept by identity and excerpt.
 */
const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;
const KEEP_EDGE_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

export interface HookAppServices {
  now(): number;
  /** Seconds since boot (/proc/uptime), the clock the shell forwarder can read without a process. */
  uptimeS(): number | null;
  handle(call: HostCall, nowMs: number): HostCallResult;
  /** A payload that can never become an event: kept aside (bounded) and counted, not dropped. */
  keepUnreadable(call: HostCall, error: string, nowMs: number): void;
  /**
   * The worker took the payload but could not store it now (a full disk, a fault, the write lock
   * held by another process): it keeps the event in the spool itself, since a hook that streamed
   * its input cannot send it again. The reply's body (a session start's kept context) when it
   * did, null when even that failed.
   */
  spoolFailed(call: HostCall, error: unknown, nowMs: number): { output: string } | null;
  /** The hook ran from the install at `bin` (its `x-memtrace-bin`): a newer install takes over. */
  noticeBin?(bin: string): void;
  /** A worker of `version` asks for the data dir (POST /worker/hand-over): only a newer one gets it. */
  handOver?(version: string): 'accepted' | 'refused';
  /**
   * While a newer version takes over, the event is kept in the spool for it instead of being
   * stored here; the reply's body (a session start's kept context) when it was, else null.
   */
  hold?(call: HostCall, nowMs: number): { output: string } | null;
}

/** A hand-over request's body is one small JSON object. */
const MAX_HAND_OVER_BYTES = 4 * 1024;

/**
 * The hooks' own door: served only on the Unix socket inside the data dir, so whoever reaches it
 * is the data dir's owner (no token, no Host or Origin checks: no browser or other account can
 * connect). It takes the host's payload exactly as the host wrote it; the worker maps it. A body
 * cut short (the hook killed mid-write) is mapped like any other: it will not parse, so it is
 * kept aside as unreadable.
 */
export function createHookApp(services: HookAppServices): SocketHandler {
  return (request): SocketExchange => {
    if (services.handOver && request.method === 'POST' && request.url === '/worker/hand-over') return handOverExchange(services.handOver);
    const route = hookRoute(request.method, request.url);
    if (!route) return { push: () => undefined, end: () => errorReply(404, 'not_found', 'hooks POST /hook/<host>/<event>') };
    const bin = request.headers['x-memtrace-bin'];
    if (bin) services.noticeBin?.(bin);
    const payload = createPayloadKeeper(MAX_HOOK_INPUT_BYTES, KEEP_EDGE_BYTES);
    return {
      push: (chunk) => payload.add(chunk),
      end: () => {
        const kept = payload.done();
        const body = kept.complete
          ? { text: kept.bytes.toString('utf8') }
          : { head: kept.head.toString('utf8'), tail: kept.tail.toString('utf8'), totalBytes: kept.totalBytes };
        return answer(services, route, request, body);
      },
    };
  };
}

function answer(services: HookAppServices, route: { host: string; event: string }, request: RequestHead, body: HostCall['body']): SocketReply {
  const startedMs = Number(request.headers['x-memtrace-hook-started']);
  const startedUptime = Number(request.headers['x-memtrace-hook-uptime']);
  const call: HostCall = {
    host: route.host,
    event: route.event,
    via: request.headers['x-memtrace-hook-via'] ?? 'unknown',
    body,
    hookElapsedMs: (nowMs) => {
      if (Number.isFinite(startedMs) && startedMs > 0) return nowMs - startedMs;
      if (!(Number.isFinite(startedUptime) && startedUptime > 0)) return null;
      const uptime = services.uptimeS();
      // /proc/uptime has 10 ms steps; both readings are truncated alike, so the difference is unbiased.
      return uptime !== null ? Math.round((uptime - startedUptime) * 1000) : null;
    },
  };
  const nowMs = services.now();
  const held = services.hold?.(call, nowMs) ?? null;
  if (held !== null) return { status: 202, headers: { 'x-memtrace-spooled': '1', 'content-type': JSON_TYPE }, body: held.output };
  let result: HostCallResult;
  try {
    result = services.handle(call, nowMs);
  } catch (error) {
    // 202: the event is kept and will be stored, so the hook must not spool it a second time.
    const kept = services.spoolFailed(call, error, nowMs);
    if (kept !== null) return { status: 202, headers: { 'x-memtrace-spooled': '1', 'content-type': JSON_TYPE }, body: kept.output };
    return errorReply(507, 'insufficient_storage', 'the worker could neither store nor spool this event');
  }
  if ('error' in result && result.unreadable) services.keepUnreadable(call, result.error, nowMs);
  if ('error' in result) return errorReply(result.status, result.unreadable ? 'unreadable' : 'not_found', result.error);
  return { status: result.status, headers: { 'content-type': JSON_TYPE }, body: result.output };
}

function handOverExchange(handOver: (version: string) => 'accepted' | 'refused'): SocketExchange {
  const chunks: Buffer[] = [];
  let bytes = 0;
  return {
    push: (chunk) => {
      bytes += chunk.length;
      if (bytes <= MAX_HAND_OVER_BYTES) chunks.push(chunk);
    },
    end: () => {
      let version: unknown;
      try {
        version = bytes <= MAX_HAND_OVER_BYTES ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { version?: unknown } | null)?.version : undefined;
      } catch {
        version = undefined;
      }
      if (typeof version !== 'string') return errorReply(400, 'bad_request', 'give {"version"}');
      return handOver(version) === 'accepted'
        ? { status: 202, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ status: 'handing_over' }) }
        : errorReply(409, 'not_newer', `this worker is not older than ${version}`);
    },
  };
}

function errorReply(status: number, code: string, message: string): SocketReply {
  return { status, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ error: { code, message } }) };
}
