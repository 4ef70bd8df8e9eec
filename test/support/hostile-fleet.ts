import type { CollectedEvent } from '../../src/fleet/collector/index.js';
import { planTile, seededRandom, simulateFleet, TILES } from '../../src/fleet/dashboards/index.js';
import { REVIEW_SUMS_TILE } from '../../src/fleet/review/index.js';

/**
 * What a buggy or hostile client might send in place of the schema's types: missing, null,
 * numbers as text (plain, padded, partial, hex, exponent), booleans, objects, arrays, nested
 * deep, huge numbers (beyond Int64, near Float64's limit), "inf"/"nan", strings with quotes,
 * backslashes, control characters, U+2028, emoji, a lone surrogate, and a 20 KB string.
 * Negative values stay small: two sums that overflow Float64 in opposite directions have no
 * order-free value, and ClickHouse sums in no fixed order.
 */
const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  2.5,
  1 / 3,
  0.1 + 0.2,
  1e21,
  1e20,
  2 ** 64,
  9.3e18,
  2 ** 53 + 2,
  -7,
  -1e15,
  1e300,
  1.7976931348623157e308,
  5e-324,
  1e-7,
  '',
  ' ',
  '12abc',
  ' 3.5',
  '3.5 ',
  '1e3',
  '1E3',
  '+5',
  '.5',
  '5.',
  '01',
  '0x10',
  '1_000',
  'inf',
  '-Infinity',
  'nan',
  '1e400',
  '99999999999999999999',
  'true',
  'null',
  'x',
  'poisoned',
  'haiku',
  'claude-code',
  'post_tool_use',
  'a"b',
  'a\\b',
  'line\nbreak',
  '\u0001',
  'tab\there',
  'ls\u2028ps\u2029',
  'é',
  '日本',
  '😀',
  'lone\ud800',
  'x'.repeat(20_000),
  { a: 1 },
  [1, 2],
  {},
  [],
  { a: { b: [1, 'x', { c: null, d: 1e21 }] } },
  JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`),
];

const READ_EVENTS = [...new Set([...TILES, REVIEW_SUMS_TILE].flatMap((t) => t.events))];
/** Every property key some tile or the review reads, from the tiles themselves: a new tile's keys are covered without a list here. */
const READ_KEYS = [...new Set([...TILES, REVIEW_SUMS_TILE].flatMap((t) => [...planTile(t).keys.keys()]))].sort();

const NOW = Date.UTC(2026, 7, 19, 12);

/** Events whose every read property is sometimes odd, sometimes a plausible value. */
export function oddEvents(count: number, seed: number, nowMs = NOW): CollectedEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const plausible = (key: string): unknown => {
    if (key.includes('version')) return pick(['0.1.0', '0.2.0', '0.3.0', '13.6.0']);
    if (key === 'hook_event') return 'post_tool_use';
    if (key === 'edge') return pick(['hook_api', 'observer_guard']);
    if (key === 'platform') return pick(['claude-code', 'gemini-cli', 'codex']);
    if (key === 'via') return pick(['mcp', 'cli', 'viewer']);
    if (key === 'outcome') return pick(['aborted', 'invalid_output', 'ok']);
    if (key === 'abort_reason') return pick(['poisoned', 'quota', 'idle']);
    if (key === 'invalid_output_class') return pick(['poisoned', 'xml', 'prose']);
    if (key.includes('model')) return pick(['haiku', 'claude-sonnet-4-6', 'openai/gpt-oss-120b:free']);
    return Math.floor(random() * 5);
  };
  return Array.from({ length: count }, (_, i) => {
    const properties: Record<string, unknown> = {};
    for (const key of READ_KEYS) if (random() < 0.4) properties[key] = random() < 0.5 ? pick(ODD_VALUES) : plausible(key);
    return {
      uuid: `00000000-0000-4000-8000-${String(seed * 1_000_000 + i).padStart(12, '0')}`,
      event: random() < 0.95 ? pick(READ_EVENTS) : 'other_event',
      distinctId: pick(['a', 'b', 'c', 'install "quoted"', '日本-install']),
      timestamp: nowMs - Math.floor(random() * 5e9),
      properties,
    };
  });
}

/**
 * The simulator's fleet (legacy per-turn events, three memtrace releases, every rollup), plus
 * odd events, plus re-sent copies of some events (the same uuid and content, as a client retry
 * sends them). `unique` holds each uuid once, as a store keeps it.
 */
export function hostileFleet(options: { seed: number; installs: number; odd: number }): { unique: CollectedEvent[]; withDuplicates: CollectedEvent[] } {
  const fleet = simulateFleet({ seed: options.seed, installs: options.installs, nowMs: NOW, releases: ['0.1.0', '0.2.0', '0.3.0'] });
  const unique = [...fleet, ...oddEvents(options.odd, options.seed)];
  const random = seededRandom(options.seed + 1);
  const resent = unique.filter(() => random() < 0.03);
  return { unique, withDuplicates: [...unique, ...resent] };
}
