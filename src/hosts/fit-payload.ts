/**
 * Keeps an event within the size the queue stores (1 MiB, the HTTP API's body limit): the
 * longest strings keep their head and tail around a marker. The observer reads at most 16,000
 * characters of a field (head and tail), so what it sees does not change; the queue just does
 * not store megabytes it would never read. Hook events and mined events alike. Pure.
 */
export const STORED_EVENT_MAX_CHARS = 1024 * 1024;
/** Shortened strings keep at least this much (half head, half tail). */
const MIN_KEEP_CHARS = 32 * 1024;

export function marker(elided: number): string {
  return `\n…[elided ${elided} characters]…\n`;
}

/** Approximate serialized size: string lengths plus a little per node (exact enough for a cap). */
function measure(value: unknown, strings: number[], depth = 0): number {
  if (typeof value === 'string') {
    strings.push(value.length);
    return value.length + 2;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return 8;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) size += measure(item, strings, depth + 1) + 1;
  } else {
    for (const [key, item] of Object.entries(value)) size += key.length + 4 + measure(item, strings, depth + 1);
  }
  return size;
}

/** The text with at most `keep` characters of it kept, head and tail around the marker. */
export function shortenText(text: string, keep: number): string {
  if (text.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  let end = head;
  // Never split a surrogate pair.
  if (end > 0 && end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
  let start = text.length - (keep - head);
  if (start < text.length && /[\uDC00-\uDFFF]/.test(text[start]!)) start += 1;
  return `${text.slice(0, end)}${marker(start - end)}${text.slice(start)}`;
}

function rewrite(value: unknown, keep: number, depth = 0): unknown {
  if (typeof value === 'string') return shortenText(value, keep);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => rewrite(v, keep, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, keep, depth + 1)]));
}

/** The value as is when it fits; else a copy whose longest strings are shortened to fit. */
export function fitPayload<T>(value: T, maxChars = STORED_EVENT_MAX_CHARS): { value: T; shortened: boolean } {
  const strings: number[] = [];
  const size = measure(value, strings);
  if (size <= maxChars) return { value, shortened: false };
  // The largest per-string length `keep` such that shortening every longer string fits.
  const fixed = size - strings.reduce((a, b) => a + b, 0);
  const sorted = strings.sort((a, b) => b - a);
  const overhead = marker(10_000_000).length;
  let lo = MIN_KEEP_CHARS;
  let hi = sorted[0] ?? MIN_KEEP_CHARS;
  const total = (keep: number) => fixed + sorted.reduce((sum, len) => sum + (len > keep ? keep + overhead : len), 0);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (total(mid) <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  return { value: rewrite(value, lo) as T, shortened: true };
}
