import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { findExcessiveNesting } from '../../http-edge/index.js';
import type { CollectedEvent } from './collected-event.js';

/** PostHog's own capture limit is in this range; anything larger is refused, compressed or not. */
export const MAX_CAPTURE_BYTES = 5 * 1024 * 1024;

export type DecodeResult = { ok: true; events: CollectedEvent[]; rejected: number } | { ok: false; status: 400 | 413; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_NAME = 200;
/**
 * Deeper bodies are refused whole: ClickHouse reads no property at all of a JSON document nested
 * past 1024 levels, so such an event would count differently on each store (and JSON.stringify
 * recurses that deep).
 */
const MAX_BODY_DEPTH = 100;
/** Timestamps every store keeps as the same instant (ClickHouse's DateTime64 covers 1900–2299); others mean "received now", as a missing one does. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);

/**
 * A PostHog capture body (`/batch/` or a single-event route), gzip or plain. Decompression is
 * bounded, so a gzip bomb is a 413 and never an out-of-memory. A body that is not a JSON object
 * is refused whole (400); inside a good batch an invalid event is skipped and counted.
 */
export function decodeCaptureBody(raw: Uint8Array, options: { gzip: boolean; nowMs: number }): DecodeResult {
  let body: Uint8Array = raw;
  if (options.gzip || (raw[0] === 0x1f && raw[1] === 0x8b)) {
    try {
      body = gunzipSync(raw, { maxOutputLength: MAX_CAPTURE_BYTES });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ERR_BUFFER_TOO_LARGE'
        ? { ok: false, status: 413, reason: `body over ${MAX_CAPTURE_BYTES} bytes once decompressed` }
        : { ok: false, status: 400, reason: 'body is not valid gzip' };
    }
  }
  let json: unknown;
  try {
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    if (findExcessiveNesting(text, MAX_BODY_DEPTH)) return { ok: false, status: 400, reason: `body nests deeper than ${MAX_BODY_DEPTH} levels` };
    json = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, reason: 'body is not valid JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, status: 400, reason: 'body must be a JSON object' };
  const envelope = json as { api_key?: unknown; token?: unknown; batch?: unknown };
  const envelopeKey = envelope.api_key ?? envelope.token;
  const items = Array.isArray(envelope.batch) ? envelope.batch : envelope.batch === undefined ? [json] : null;
  if (items === null) return { ok: false, status: 400, reason: '"batch" must be an array' };
  const events: CollectedEvent[] = [];
  let rejected = 0;
  for (const item of items) {
    const event = toEvent(item, envelopeKey, options.nowMs);
    if (event) events.push(event);
    else rejected += 1;
  }
  if (events.length === 0 && !isKey(envelopeKey)) return { ok: false, status: 400, reason: 'api_key is required' };
  if (events.length === 0 && rejected > 0) return { ok: false, status: 400, reason: 'no valid event in the body' };
  return { ok: true, events, rejected };
}

const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function toEvent(item: unknown, envelopeKey: unknown, nowMs: number): CollectedEvent | null {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return null;
  const e = item as { event?: unknown; distinct_id?: unknown; properties?: unknown; uuid?: unknown; timestamp?: unknown; api_key?: unknown };
  const properties = e.properties !== null && typeof e.properties === 'object' && !Array.isArray(e.properties) ? (e.properties as Record<string, unknown>) : {};
  if (!isKey(envelopeKey) && !isKey(e.api_key) && !isKey(properties.token)) return null;
  if (typeof e.event !== 'string' || e.event === '' || e.event.length > MAX_NAME) return null;
  const rawId = e.distinct_id ?? properties.distinct_id;
  const distinctId = typeof rawId === 'string' ? rawId : typeof rawId === 'number' && Number.isFinite(rawId) ? String(rawId) : null;
  if (distinctId === null || distinctId === '' || distinctId.length > MAX_NAME) return null;
  const parsed = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : typeof e.timestamp === 'number' ? e.timestamp : Number.NaN;
  // Like PostHog: a missing or unreadable timestamp means "received now".
  const timestamp = Number.isFinite(parsed) && parsed >= EARLIEST_MS && parsed < LATEST_MS ? Math.trunc(parsed) : nowMs;
  // Without a valid uuid one is derived from the content as sent, so a re-sent copy still dedupes.
  const uuid = typeof e.uuid === 'string' && UUID.test(e.uuid) ? e.uuid.toLowerCase() : contentUuid([e.event, distinctId, e.timestamp ?? null, properties]);
  return { uuid, event: e.event, distinctId, timestamp, properties };
}

function contentUuid(content: unknown[]): string {
  const hex = createHash('sha1').update(JSON.stringify(content)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
