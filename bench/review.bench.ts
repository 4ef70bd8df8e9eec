import path from 'node:path';
import { openCollectorStore, type CollectedEvent } from '../src/fleet/collector/index.js';
import { compileSQLite, generateFleet, queryTilesDirect } from '../src/fleet/dashboards/index.js';
import { computeReview, installSumsFromColumns, localReviewSource, REVIEW_SUMS_TILE, reviewPairedSums, runReview } from '../src/fleet/review/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { compareTileResults } from '../test/support/tile-compare.js';
import { summarize } from './stats.js';

export const name = 'review';

const NOW_MS = Date.UTC(2026, 10, 18, 12);
const RUNS = 7;

/**
 * `dashboards review` of 0.1.0 against 0.2.0 over stores of 1 M and 10 M simulated events: read
 * from the per-install sums the collector keeps, and — the baseline, in the same run —
 * from one pass of the review's plain compiled SQL over the raw events. Also checks that the two
 * give the same sums cell for cell, and times the statistics alone.
 * BENCH_REVIEW_SIZES=1 (millions, comma-separated) runs fewer sizes.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const sizes = (process.env.BENCH_REVIEW_SIZES ?? '1,10')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  try {
    const out: Record<string, unknown> = { command: 'memtrace dashboards review --db FILE --baseline 0.1.0 --candidate 0.2.0' };
    for (const millions of sizes) out[`review_${millions}m`] = await reviewAt(path.join(temp.dir, `review-${millions}m.db`), millions * 1_000_000);
    out.target = 'well under a second for the review at 10 M events (the statistics included)';
    return out;
  } finally {
    temp.cleanup();
  }
}

async function reviewAt(file: string, target: number): Promise<Record<string, unknown>> {
  const store = openCollectorStore(file);
  try {
    // Events go straight into the events table, then the review's sums are built once from them
    // (the path a store from before the review takes); the table a review reads is the same as if
    // they had been kept at ingest, and is checked against the plain SQL below.
    let started = performance.now();
    // Fleets of different seeds can draw the same uuid (their random streams overlap somewhere in
    // millions of draws); the collector keeps one row per uuid, and so does the fill.
    const insert = store.db.prepare('INSERT OR IGNORE INTO events (uuid, event, distinct_id, timestamp, properties) VALUES (?, ?, ?, ?, ?)');
    const insertBatch = store.db.transaction((batch: CollectedEvent[]) => {
      let added = 0;
      for (const e of batch) added += insert.run(e.uuid, e.event, e.distinctId, e.timestamp, JSON.stringify(e.properties)).changes;
      return added;
    });
    let stored = 0;
    let seed = 1_000;
    let batch: CollectedEvent[] = [];
    fill: for (;;) {
      for (const e of generateFleet({ seed: seed++, installs: 2_000, nowMs: NOW_MS })) {
        batch.push(e);
        if (batch.length === 5_000) {
          stored += insertBatch(batch);
          batch = [];
          if (stored >= target) break fill;
        }
      }
    }
    const fillSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    store.review.refresh();
    const buildSeconds = (performance.now() - started) / 1000;
    const events = store.count();
    const source = localReviewSource(store.db, store.review, file);

    // The first review in a fresh process, then warm ones.
    const samples: number[] = [];
    let review: Awaited<ReturnType<typeof runReview>> | undefined;
    for (let i = 0; i < RUNS; i += 1) {
      started = performance.now();
      review = await runReview(source, '0.1.0', '0.2.0');
      samples.push(performance.now() - started);
    }
    const paired = await source.pairedSums('0.1.0', '0.2.0');
    started = performance.now();
    reviewPairedSums(paired, '0.1.0', '0.2.0');
    const statisticsMs = performance.now() - started;

    // Baseline: the same per-install sums from one pass over the raw events.
    started = performance.now();
    const plainRows = store.db.prepare(compileSQLite(REVIEW_SUMS_TILE).query).all() as Array<Record<string, number | string>>;
    const plainReview = computeReview(
      plainRows.map((r) => installSumsFromColumns(String(r.x), String(r.series), (c) => r[c] as number)),
      '0.1.0',
      '0.2.0',
    );
    const plainMs = performance.now() - started;
    const same = compareTileResults(store.review.read(), queryTilesDirect(store.db, [REVIEW_SUMS_TILE]));

    return {
      events,
      fill_s_incl_simulation: +fillSeconds.toFixed(1),
      review_sums_build_s: +buildSeconds.toFixed(1),
      installs: { baseline: review!.measures[0]!.baseline.installs, candidate: review!.measures[0]!.candidate.installs },
      install_rows_read: paired.rows.baseline + paired.rows.candidate,
      review_first_ms: +samples[0]!.toFixed(1),
      review_ms: summarize(samples.slice(1)),
      statistics_only_ms: +statisticsMs.toFixed(1),
      plain_sql_review_ms: Math.round(plainMs),
      speedup_vs_plain: Math.round(plainMs / summarize(samples.slice(1)).p50_ms),
      same_review_as_plain: JSON.stringify(plainReview) === JSON.stringify(review),
      sums_identical_to_plain: same,
    };
  } finally {
    store.close();
  }
}
