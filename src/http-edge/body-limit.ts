import type { Context, MiddlewareHandler } from 'hono';
import { apiError } from './api-error.js';

/**
 * How much of a refused body is read and thrown away before the answer. A client that writes its
 * whole body before it reads (Python's http.client, many scripts, a loaded hook) would otherwise
 * hit a closed socket (EPIPE) and never see the answer: "too large" would look like "worker gone".
 * Past this bound the sender is cut off: reading more would let anyone make the server read forever.
 */
const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;
/** A sender that stalls mid-body is not waited for longer than this. */
const DISCARD_DEADLINE_MS = 10_000;

export interface DiscardLimits {
  bytes: number;
  deadlineMs: number;
}

const DEFAULT_LIMITS: DiscardLimits = { bytes: DISCARD_LIMIT_BYTES, deadlineMs: DISCARD_DEADLINE_MS };

/**
 * Bodies over `maxBytes` get a 413, always delivered: the rest of the body is read and discarded
 * (bounded) first. A body without a Content-Length (chunked) is read up to the limit and handed on
 * buffered, so no route ever reads past it.
 */
export function limitBody(maxBytes: number, limits: DiscardLimits = DEFAULT_LIMITS): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = declaredLength(c);
    if (declared !== null) {
      if (declared <= maxBytes) return next();
      if (declared <= limits.bytes) await discardRest(body.getReader(), 0, limits);
      return bodyTooLarge(c, maxBytes);
    }
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await discardRest(reader, size, limits);
        return bodyTooLarge(c, maxBytes);
      }
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
    return next();
  };
}

/**
 * A refusal that comes before the body is read (wrong Host, a browser, no token, not JSON):
 * the body is discarded the same way, so its sender reads the answer too.
 */
export async function refuseAfterBody(c: Context, response: Response, limits: DiscardLimits = DEFAULT_LIMITS): Promise<Response> {
  const body = c.req.raw.body;
  if (!body || body.locked) return response;
  const declared = declaredLength(c);
  const whole = (declared === null || declared <= limits.bytes) && (await discardRest(body.getReader(), 0, limits));
  if (!whole) response.headers.set('connection', 'close');
  return response;
}

/**
 * The 413 closes the connection: when the body could not be read to its end, the rest of it must
 * not be taken for the client's next request.
 */
function bodyTooLarge(c: Context, maxBytes: number): Response {
  return c.json(apiError('body_too_large', `request bodies are limited to ${maxBytes} bytes`), 413, { connection: 'close' });
}

/** Reads and drops the rest of a body; true when it ended within the limits. Never cancels: that would close the socket before the answer. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number, limits: DiscardLimits): Promise<boolean> {
  let total = alreadyRead;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), limits.deadlineMs);
    timer.unref();
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === 'late') return false;
      if (next.done) return true;
      total += next.value.byteLength;
      if (total > limits.bytes) return false;
    }
  } catch {
    // The client went away mid-body: nobody is left to read the answer.
    return false;
  } finally {
    clearTimeout(timer);
  }
}

function declaredLength(c: Context): number | null {
  if (c.req.header('transfer-encoding') !== undefined) return null;
  const raw = c.req.header('content-length');
  if (raw === undefined) return null;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}
