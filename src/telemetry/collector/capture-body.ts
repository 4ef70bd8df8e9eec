import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { CollectedEvent } from './collector-store.js';

export const MAX_CAPTURE_BYTES = 5 * 1024 * 1024;

export type DecodeResult =
  | { ok: true; events: CollectedEvent[]; rejected: number }
  | { ok: false; status: 400 | 413; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A PostHog capture body (`/batch/` or single-event routes), gzip or plain. Decompression is
 * bounded, so a gzip bomb is a 413, not an out-of-memory. A malformed body is refused whole;
 * within a good batch, an invalid event is skipped and counted.
 */
export function decodeCaptureBody(raw: Buffer, options: { gzip: boolean; nowMs: number }): DecodeResult {
  let body = raw;
  if (options.gzip || (raw[0] === 0x1f && raw[1] === 0x8b)) {
    try {
      body = gunzipSync(raw, { maxOutputLength: MAX_CAPTURE_BYTES });
    } catch (error) {
      const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || /larger than|too large/i.test(String(error));
      return tooLarge ? { ok: false, status: 413, reason: `decompressed body over ${MAX_CAPTURE_BYTES} bytes` } : { ok: false, status: 400, reason: 'body is not valid gzip' };
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, status: 400, reason: 'body is not valid JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, status: 400, reason: 'body must be a JSON object' };
  const envelope = json as { api_key?: unknown; token?: unknown; batch?: unknown };
  const apiKey = envelope.api_key ?? envelope.token;
  const items = Array.isArray(envelope.batch) ? envelope.batch : envelope.batch === undefined ? [json] : null;
  if (items === null) return { ok: false, status: 400, reason: '"batch" must be an array' };
  const events: CollectedEvent[] = [];
  let rejected = 0;
  for (const item of items) {
    const event = toEvent(item, apiKey, options.nowMs);
    if (event) events.push(event);
    else rejected += 1;
  }
  if (typeof apiKey !== 'string' && events.length === 0) return { ok: false, status: 400, reason: 'api_key is required' };
  return { ok: true, events, rejected };
}

function toEvent(item: unknown, envelopeKey: unknown, nowMs: number): CollectedEvent | null {
  if (item === null || typeof item !== 'object') return null;
  const e = item as { event?: unknown; distinct_id?: unknown; properties?: unknown; uuid?: unknown; timestamp?: unknown; api_key?: unknown };
  const key = envelopeKey ?? e.api_key ?? (e.properties as { token?: unknown } | undefined)?.token;
  if (typeof key !== 'string' || key === '') return null;
  if (typeof e.event !== 'string' || e.event === '' || e.event.length > 200) return null;
  const properties = e.properties !== null && typeof e.properties === 'object' && !Array.isArray(e.properties) ? (e.properties as Record<string, unknown>) : {};
  const distinctId = typeof e.distinct_id === 'string' ? e.distinct_id : typeof properties.distinct_id === 'string' ? properties.distinct_id : null;
  if (distinctId === null || distinctId.length > 200) return null;
  const parsedTime = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : typeof e.timestamp === 'number' ? e.timestamp : Number.NaN;
  const timestamp = Number.isFinite(parsedTime) ? parsedTime : nowMs;
  // Without a uuid, one is derived from the content, so a re-sent copy still dedupes.
  const uuid = typeof e.uuid === 'string' && UUID.test(e.uuid) ? e.uuid.toLowerCase() : contentUuid(e.event, distinctId, timestamp, properties);
  return { uuid, event: e.event, distinctId, timestamp, properties };
}

function contentUuid(event: string, distinctId: string, timestamp: number, properties: Record<string, unknown>): string {
  const hex = createHash('sha1').update(JSON.stringify([event, distinctId, timestamp, properties])).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
