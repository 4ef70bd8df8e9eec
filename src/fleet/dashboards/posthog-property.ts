/**
 * How PostHog reads an event property, in JavaScript, so every store computes what PostHog
 * computes. HogQL's `properties.k` is printed for ClickHouse as
 * `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, 'k'), ''), 'null'), '^"|"$', '')`:
 * a String, NULL for a missing key or JSON null; a JSON string loses its quotes but keeps its
 * escapes (ClickHouse writes the value back as JSON first); a number is its text; true/false are
 * 'true'/'false'; an object or array stays JSON text. `toFloat(x)` is
 * `accurateCastOrNull(x, 'Float64')`. Measured against ClickHouse 26.7 (chdb 3.4.0) over every
 * printable character, 20 000 doubles and 3 000 number strings; the differential tests hold the
 * two to each other (docs/dashboards.md#the-clickhouse-target-what-posthog-computes).
 */

/** ClickHouse's text for a double: JavaScript's shortest round-trip form, exponent without '+'. */
function numberText(n: number): string {
  // JSON.stringify writes -0 as 0, and that is the text ClickHouse reads back.
  if (Object.is(n, -0)) return '0';
  const text = String(n);
  return text.includes('e+') ? text.replace('e+', 'e') : text;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters JSON escapes are what this finds.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/;

/** A JSON string as ClickHouse writes it: upper-case \u00XX escapes, and U+2028/U+2029 escaped too. */
function jsonStringText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return JSON.stringify(s)
    .replace(/\\u00([0-9a-f]{2})/g, (_, hex: string) => `\\u00${hex.toUpperCase()}`)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A JSON value re-serialized as ClickHouse's JSONExtractRaw writes it (no spaces, its number and string forms). */
function rawJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : 'null';
  if (typeof value === 'string') return jsonStringText(value);
  if (Array.isArray(value)) return `[${value.map(rawJson).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) parts.push(`${jsonStringText(k)}:${rawJson(v)}`);
  return `{${parts.join(',')}}`;
}

/** PostHog's String for a property value as parsed from the stored JSON (undefined: the key is missing). */
export function propertyText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : null;
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? jsonStringText(value).slice(1, -1) : value;
  return rawJson(value);
}

// What accurateCastOrNull(String, 'Float64') reads as a finite number: a decimal with an optional
// sign, fraction and exponent, nothing around it. It also reads inf, infinity and nan (any case),
// and an overflow as ±inf; the tiles count none of those (tileNumber).
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `accurateCastOrNull(text, 'Float64')` where it is finite; null for everything a tile treats as not a number. */
function finiteFloat(text: string | null): number | null {
  if (text === null || !DECIMAL.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/**
 * A tile's numeric reading of a property text: the number when ClickHouse casts it to a finite
 * Float64, else 0 (missing, null, a word, a boolean, an object, "inf", "nan", beyond Float64).
 */
export function tileNumber(text: string | null): number {
  return finiteFloat(text) ?? 0;
}
