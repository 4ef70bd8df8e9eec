import { Hono } from 'hono';
import type { HostCall, HostCallResult } from '../worker/host-intake.js';

/**
 * What a hook may send before its payload is cut to head and tail (the agent hosts have no size
 * cap of their own: a Bash printing megabytes, an Edit carrying the whole file twice). The event
 * is still stored, shortened; only a payload beyond this is kept by identity and excerpt.
 */
const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;
const KEEP_EDGE_BYTES = 1024 * 1024;

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

/**
 * The hooks' own door: served only on the Unix socket inside the data dir, so whoever reaches it
 * is the data dir's owner (no token, no Host or Origin checks: no browser or other account can
 * connect). It takes the host's payload exactly as the host wrote it; the worker maps it.
 */
export function createHookApp(services: HookAppServices): Hono {
  const app = new Hono();
  app.post('/hook/:host/:event', async (c) => {
    const bin = c.req.header('x-memtrace-bin');
    if (bin) services.noticeBin?.(bin);
    const received = await readCapped(c.req.raw.body, MAX_HOOK_INPUT_BYTES);
    const startedMs = Number(c.req.header('x-memtrace-hook-started'));
    const startedUptime = Number(c.req.header('x-memtrace-hook-uptime'));
    const call: HostCall = {
      host: c.req.param('host'),
      event: c.req.param('event'),
      via: c.req.header('x-memtrace-hook-via') ?? 'unknown',
      body: 'text' in received ? { text: received.text } : { head: received.head, tail: received.tail, totalBytes: received.totalBytes },
      hookElapsedMs: (nowMs) => {
        if (Number.isFinite(startedMs) && startedMs > 0) return nowMs - startedMs;
        const uptime = services.uptimeS();
        // /proc/uptime has 10 ms steps; both readings are truncated alike, so the difference is unbiased.
        return Number.isFinite(startedUptime) && startedUptime > 0 && uptime !== null ? Math.round((uptime - startedUptime) * 1000) : null;
      },
    };
    const nowMs = services.now();
    const held = services.hold?.(call, nowMs) ?? null;
    if (held !== null) return c.body(held.output, 202, { 'x-memtrace-spooled': '1', 'content-type': 'application/json; charset=utf-8' });
    let result: HostCallResult;
    try {
      result = services.handle(call, nowMs);
    } catch (error) {
      // 202: the event is kept and will be stored, so the hook must not spool it a second time.
      return services.spoolFailed(call, error, nowMs)
        ? c.body(null, 202, { 'x-memtrace-spooled': '1' })
        : c.json({ error: { code: 'insufficient_storage', message: 'the worker could neither store nor spool this event' } }, 507);
    }
    if ('error' in result && result.unreadable) services.keepUnreadable(call, result.error, nowMs);
    if ('error' in result) return c.json({ error: { code: result.unreadable ? 'unreadable' : 'not_found', message: result.error } }, result.status);
    return c.body(result.output, result.status, { 'content-type': 'application/json; charset=utf-8' });
  });
  if (services.handOver) {
    const handOver = services.handOver;
    app.post('/worker/hand-over', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { version?: unknown } | null;
      if (typeof body?.version !== 'string') return c.json({ error: { code: 'bad_request', message: 'give {"version"}' } }, 400);
      return handOver(body.version) === 'accepted'
        ? c.json({ status: 'handing_over' }, 202)
        : c.json({ error: { code: 'not_newer', message: `this worker is not older than ${body.version}` } }, 409);
    });
  }
  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'hooks POST /hook/<host>/<event>' } }, 404));
  return app;
}

type Received = { text: string } | { head: string; tail: string; totalBytes: number };

/**
 * The whole body, or past `max` bytes its head and tail (the rest read and dropped). A client
 * that went away mid-body leaves what it sent: it will not parse, so it is kept as unreadable.
 */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Received> {
  if (!body) return { text: '' };
  const chunks: Uint8Array[] = [];
  let total = 0;
  let head: Buffer | null = null;
  const tail: Uint8Array[] = [];
  let tailBytes = 0;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (head === null && total <= max) {
        chunks.push(chunk);
        continue;
      }
      if (head === null) {
        head = Buffer.concat(chunks).subarray(0, KEEP_EDGE_BYTES);
        chunks.length = 0;
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= KEEP_EDGE_BYTES) tailBytes -= tail.shift()!.length;
    }
  } catch {
    /* the client went away: keep what came */
  }
  if (head === null) return { text: Buffer.concat(chunks).toString('utf8') };
  const tailBuffer = Buffer.concat(tail);
  return { head: head.toString('utf8'), tail: tailBuffer.subarray(Math.max(0, tailBuffer.length - KEEP_EDGE_BYTES)).toString('utf8'), totalBytes: total };
}
