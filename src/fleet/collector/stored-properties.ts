/**
 * The one JSON text every collector store keeps for an event's properties, written so that
 * ClickHouse and SQLite read the same values from it. JSON.stringify's text is used as it is,
 * except for two things ClickHouse's JSON reader refuses — and a refused document makes *every*
 * property of the event NULL there, while SQLite would still read the rest:
 * - a lone UTF-16 surrogate (JSON.stringify writes it as `\udXXX`) becomes U+FFFD;
 * - an integer beyond Int64/UInt64 (JSON.stringify writes 1e20 as 21 digits) is written with an
 *   exponent (`1e+20`), which both read as the same double.
 * `properties` is what the stored text parses back to, for stores that evaluate the event in memory.
 */
export interface StoredProperties {
  json: string;
  properties: Record<string, unknown>;
}

// Only the slow path checks exactly; these cheap tests just catch every text that might need it.
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/;
const LONG_DIGIT_RUN = /\d{19}/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UINT64_LIMIT = 2 ** 64;
const INT64_MIN = -(2 ** 63);

export function storedProperties(properties: Record<string, unknown>): StoredProperties {
  const json = JSON.stringify(properties);
  if (!LONE_SURROGATE_ESCAPE.test(json) && !LONG_DIGIT_RUN.test(json)) return { json, properties };
  const safe = writeValue(properties);
  return { json: safe, properties: JSON.parse(safe) as Record<string, unknown> };
}

function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\ufffd');
}

/** JSON.stringify's output with the two changes above (undefined and functions dropped as it drops them). */
function writeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(wellFormed(value));
  if (typeof value === 'number') {
    if (Number.isInteger(value) && (value >= UINT64_LIMIT || value < INT64_MIN)) return value.toExponential();
    return JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return writeValue((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : writeValue(v))).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    parts.push(`${JSON.stringify(wellFormed(k))}:${writeValue(v)}`);
  }
  return `{${parts.join(',')}}`;
}
