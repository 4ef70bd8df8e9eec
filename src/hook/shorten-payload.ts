/**
 * A hook payload over the worker's body limit is not dropped: its largest string fields are cut
 * to head and tail with a marker saying how much was removed, until the JSON fits. Pure.
 */
export interface Shortened {
  body: Record<string, unknown>;
  shortened: boolean;
  bytes: number;
}

const MARKER = (cut: number) => `\n[… memtrace cut ${cut} characters to fit the hook body limit …]\n`;
const MAX_ROUNDS = 64;

export function shortenToFit(body: Record<string, unknown>, maxBytes: number): Shortened {
  let json = JSON.stringify(body);
  let bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return { body, shortened: false, bytes };
  let current = structuredClone(body) as Record<string, unknown>;
  for (let round = 0; round < MAX_ROUNDS && bytes > maxBytes; round += 1) {
    const largest = largestString(current);
    if (!largest || largest.value.length < 256) break;
    const excess = bytes - maxBytes;
    // Cut the excess plus room for the marker and JSON escaping; keep head and tail.
    const keep = Math.max(128, largest.value.length - Math.ceil(excess * 1.1) - 256);
    const head = Math.ceil(keep * 0.6);
    const tail = keep - head;
    const cut = largest.value.length - keep;
    largest.set(`${safeSlice(largest.value, 0, head)}${MARKER(cut)}${safeSlice(largest.value, largest.value.length - tail)}`);
    json = JSON.stringify(current);
    bytes = Buffer.byteLength(json);
  }
  if (bytes > maxBytes) {
    // Nothing large enough to cut (e.g. a huge array of small strings): keep the identity, drop the bulk.
    current = Object.fromEntries(Object.entries(current).filter(([k]) => !['tool_response', 'tool_input', 'last_assistant_message', 'prompt'].includes(k)));
    current.tool_response = `[memtrace: the payload (${bytes} bytes) could not be shortened to fit; see the transcript]`;
    bytes = Buffer.byteLength(JSON.stringify(current));
  }
  return { body: current, shortened: true, bytes };
}

function largestString(root: unknown): { value: string; set(v: string): void } | null {
  let best: { value: string; set(v: string): void } | null = null;
  const stack: Array<{ holder: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const push = (holder: Record<string, unknown> | unknown[]) => {
    for (const key of Array.isArray(holder) ? holder.keys() : Object.keys(holder)) stack.push({ holder, key });
  };
  if (root && typeof root === 'object') push(root as Record<string, unknown>);
  while (stack.length > 0) {
    const { holder, key } = stack.pop()!;
    const value = (holder as Record<string | number, unknown>)[key];
    if (typeof value === 'string') {
      if (!best || value.length > best.value.length) best = { value, set: (v) => void ((holder as Record<string | number, unknown>)[key] = v) };
    } else if (value && typeof value === 'object') push(value as Record<string, unknown>);
  }
  return best;
}

/** Never splits a surrogate pair. */
function safeSlice(s: string, start: number, end?: number): string {
  let from = start;
  let to = end ?? s.length;
  if (from > 0 && isLowSurrogate(s.charCodeAt(from))) from += 1;
  if (to < s.length && isLowSurrogate(s.charCodeAt(to))) to -= 1;
  return s.slice(from, to);
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
