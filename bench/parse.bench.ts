import { XMLParser } from 'fast-xml-parser';
import { decideObserverOutput } from '../src/observer/index.js';
import { observationXml } from '../test/support/replies.js';
import { realisticCorpus } from './corpus.js';
import { regexParse } from './regex-baseline.js';
import { summarize } from './stats.js';

export const name = 'parse';

/**
 * The drop-or-parse decision over a realistic corpus, against the bare fast-xml-parser on the
 * same replies and a regex extractor of the reference product's shape (bench/regex-baseline.ts),
 * in one run: ours with the fast path, ours with every reply on the full path, bare, regex.
 */
export async function run(): Promise<Record<string, unknown>> {
  const corpus = realisticCorpus(2_000);
  const bytes = corpus.reduce((n, r) => n + Buffer.byteLength(r), 0);
  const bare = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: true, processEntities: true, htmlEntities: true });
  // The bare library parses the same blocks: the replies' XML without the prose around them.
  const blocks = corpus.map((r) => (r.includes('<') ? `<root>${r}</root>` : null)).filter((r): r is string => r !== null);

  let sink = 0;
  /** Best of several rounds (ms per corpus pass), after a warm-up. */
  const time = (fn: () => void, rounds = 15) => {
    for (let i = 0; i < 3; i += 1) fn();
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < rounds; i += 1) {
      const started = performance.now();
      fn();
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  const oursMs = time(() => {
    for (const r of corpus) sink += decideObserverOutput(r).observations.length;
  });
  const fullMs = time(() => {
    for (const r of corpus) sink += decideObserverOutput(r, { fastPath: false }).observations.length;
  });
  const bareMs = time(() => {
    for (const b of blocks) sink += Object.keys(bare.parse(b)).length;
  });
  const regexMs = time(() => {
    for (const r of corpus) sink += regexParse(r).length;
  });
  const mbps = (ms: number) => +(bytes / 1e6 / (ms / 1000)).toFixed(1);

  const big = observationXml({ type: 'feature', title: 'large', narrative: 'the parser reads a long narrative with a < b and Map<K, V> '.repeat(5_200) });
  const samples: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    decideObserverOutput(big);
    samples.push(performance.now() - started);
  }
  return {
    corpus_replies: corpus.length,
    corpus_mb: +(bytes / 1e6).toFixed(3),
    ours_mb_per_s: mbps(oursMs),
    ours_us_per_reply: +((oursMs * 1000) / corpus.length).toFixed(2),
    ours_full_path_only_mb_per_s: mbps(fullMs),
    bare_fast_xml_parser_mb_per_s: mbps(bareMs),
    regex_baseline_mb_per_s: mbps(regexMs),
    regex_baseline_us_per_reply: +((regexMs * 1000) / corpus.length).toFixed(2),
    ratio_ours_vs_regex_throughput: +(regexMs / oursMs).toFixed(2),
    ratio_ours_time_vs_bare: +(oursMs / bareMs).toFixed(2),
    speedup_fast_path_vs_full_path: +(fullMs / oursMs).toFixed(2),
    reply_300kb: { bytes: Buffer.byteLength(big), ...summarize(samples) },
    targets: { ratio_ours_vs_regex_throughput_min: 0.5, ratio_ours_time_vs_bare_max: 1.5, p99_300kb_ms: 20 },
    checksum: sink,
  };
}
