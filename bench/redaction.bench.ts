import { redactText, redactValue } from '../src/redaction/index.js';
import { createReplayProvider } from '../src/providers/index.js';
import { nonSecrets, secretSamples } from '../test/support/secret-samples.js';
import { realisticEvents } from '../test/support/realistic-events.js';
import { startHarness } from '../test/support/worker-harness.js';
import { createPoster, postAtRate } from './http-poster.js';
import { summarize } from './stats.js';

export const name = 'redaction';

const MB = 1 << 20;
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Median time of `fn` over `runs` runs after a warm-up (ms). */
function median(fn: () => unknown, runs = 15): number {
  for (let i = 0; i < 3; i += 1) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const toMb = (text: string) => text.repeat(Math.ceil(MB / text.length)).slice(0, MB);

/**
 * What redaction costs: per MB of text of several kinds (with `indexOf` over the same MB as a
 * floor: one pass that finds nothing), per typical hook event (with JSON.stringify of the same
 * event as a baseline), and the hook API's latency at 500 requests/s with and without it, in
 * alternating rounds of the same run.
 */
export async function run(): Promise<Record<string, unknown>> {
  const events = realisticEvents(2_000, { seed: 3, secretEvery: 50 });
  const code = toMb(events.map((e) => JSON.stringify(e)).join('\n'));
  const image = toMb(nonSecrets().find((n) => n.name === 'a base64 image')!.text);
  const dense = toMb(
    secretSamples(4)
      .map((s) => s.text)
      .join('\n'),
  );
  const hostile = toMb('eyJhbGciOiJIUzI1NiJ9.');
  const perMb = Object.fromEntries(
    Object.entries({ code_and_logs: code, base64_image: image, secret_dense: dense, hostile_jwt_prefixes: hostile }).map(([k, text]) => [
      k,
      { ms: round(median(() => redactText(text))), floor_indexOf_ms: round(median(() => text.indexOf('\u0000'))) },
    ]),
  );
  const typical = events.slice(0, 500);
  const eventMs =
    median(() => {
      for (const e of typical) redactValue(e);
    }) / typical.length;
  const stringifyMs =
    median(() => {
      for (const e of typical) JSON.stringify(e);
    }) / typical.length;
  const meanBytes = typical.reduce((n, e) => n + JSON.stringify(e).length, 0) / typical.length;

  // The hook API at 500 req/s: the same worker setup twice, alternating rounds, with and without redaction.
  const idle = { loop: { concurrency: 1, backoff: { baseMs: 3_600_000, capMs: 3_600_000 }, authProbe: { baseMs: 3_600_000, capMs: 3_600_000 } } };
  const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401}}'] });
  const withRedaction = await startHarness(refusing(), idle);
  const without = await startHarness(refusing(), { ...idle, redactBody: <T>(value: T) => value });
  // 500/s is the figure; MEMTRACE_BENCH_RATE lowers it on a machine too busy to keep up
  // (then both sides queue and the comparison measures the queue, not redaction).
  const rate = Number(process.env.MEMTRACE_BENCH_RATE ?? 500);
  const roundSeconds = 4;
  const busy = { with: 0, without: 0 };
  const samples: { with: number[]; without: number[] } = { with: [], without: [] };
  try {
    for (const [key, h] of [
      ['with', withRedaction],
      ['without', without],
    ] as const) {
      const poster = createPoster(`${h.worker.url}/api/sessions/observations`, h.token);
      for (let i = 0; i < 200; i += 1) await poster.post({ ...events[i % events.length]!, tool_use_id: `warm-${key}-${i}` });
      poster.close();
    }
    for (let round = 0; round < 4; round += 1) {
      for (const [key, h] of round % 2 === 0
        ? ([
            ['with', withRedaction],
            ['without', without],
          ] as const)
        : ([
            ['without', without],
            ['with', withRedaction],
          ] as const)) {
        const poster = createPoster(`${h.worker.url}/api/sessions/observations`, h.token);
        const started = performance.now();
        samples[key].push(
          ...(await postAtRate(poster, rate * roundSeconds, rate, (i) => ({ ...events[i % events.length]!, tool_use_id: `r${round}-${key}-${i}` }))),
        );
        busy[key] += (performance.now() - started) / 1000;
        poster.close();
      }
    }
  } finally {
    await withRedaction.stop();
    await without.stop();
  }
  const a = summarize(samples.with);
  const b = summarize(samples.without);
  return {
    per_mb: perMb,
    per_event: { mean_event_bytes: Math.round(meanBytes), redact_us: round(eventMs * 1000, 1), json_stringify_us_baseline: round(stringifyMs * 1000, 1) },
    hook_api: {
      rate_per_s: rate,
      achieved_per_s: { with: Math.round(samples.with.length / busy.with), without: Math.round(samples.without.length / busy.without) },
      with_redaction: a,
      without_redaction: b,
      p99_added_ms: round(a.p99_ms - b.p99_ms),
      p99_share: round((a.p99_ms - b.p99_ms) / b.p99_ms, 3),
      target_share: 0.05,
    },
  };
}
