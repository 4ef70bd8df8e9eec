import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HostCall, HostCallResult } from '../worker/host-intake.js';
import { readCappedBody } from './capped-body.js';
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
   * The worker took the payload but could not store it (a full disk, a fault): it keeps the
   * event in the spool itself, since a hook that streamed its input cannot send it again.
   * False when even that failed.
   */
  spoolFailed(call: HostCall, error: unknown, nowMs: number): boolean;
}

export type HookRequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The hooks' own door: served only on the Unix socket inside the data dir, so whoever reaches it
 * is the data dir's owner (no token, no Host or Origin checks: no browser or other account can
 * connect). It takes the host's payload exactly as the host wrote it; the worker maps it.
 *
 * A plain node:http listener rather than a router: every tool call of every agent comes through
 * here, and building a fetch Request and Response around each (web streams, headers objects)
 * cost the worker more CPU than storing the event.
 */
export function createHookApp(services: HookAppServices): HookRequestListener {
  return (request, response) => {
    const route = hookRoute(request.method, request.url);
    if (!route) {
      request.resume();
      return reply(response, 404, errorBody('not_found', 'hooks POST /hook/<host>/<event>'));
    }
    readCappedBody(request, MAX_HOOK_INPUT_BYTES, KEEP_EDGE_BYTES, (received) => {
      let answered: Reply;
      try {
        answered = answer(services, route, request, received);
      } catch (error) {
        answered = { status: 500, body: errorBody('internal', error instanceof Error ? error.message : String(error)) };
      }
      reply(response, answered.status, answered.body, answered.headers);
    });
  };
}

interface Reply {
  status: number;
  body: string | { json: string };
  headers?: Record<string, string>;
}

function answer(services: HookAppServices, route: { host: string; event: string }, request: IncomingMessage, body: HostCall['body']): Reply {
  const startedMs = Number(request.headers['x-memtrace-hook-started']);
  const startedUptime = Number(request.headers['x-memtrace-hook-uptime']);
  const via = request.headers['x-memtrace-hook-via'];
  const call: HostCall = {
    host: route.host,
    event: route.event,
    via: typeof via === 'string' ? via : 'unknown',
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
  let result: HostCallResult;
  try {
    result = services.handle(call, nowMs);
  } catch (error) {
    // 202: the event is kept and will be stored, so the hook must not spool it a second time.
    if (services.spoolFailed(call, error, nowMs)) return { status: 202, body: '', headers: { 'x-memtrace-spooled': '1' } };
    return { status: 507, body: errorBody('insufficient_storage', 'the worker could neither store nor spool this event') };
  }
  if ('error' in result && result.unreadable) services.keepUnreadable(call, result.error, nowMs);
  if ('error' in result) return { status: result.status, body: errorBody(result.unreadable ? 'unreadable' : 'not_found', result.error) };
  return { status: result.status, body: result.output, headers: { 'content-type': JSON_TYPE } };
}

function errorBody(code: string, message: string): { json: string } {
  return { json: JSON.stringify({ error: { code, message } }) };
}

function reply(response: ServerResponse, status: number, body: string | { json: string }, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : body.json;
  const type = typeof body === 'string' ? {} : { 'content-type': JSON_TYPE };
  response.writeHead(status, { ...type, ...headers, 'content-length': Buffer.byteLength(text) }).end(text);
}
