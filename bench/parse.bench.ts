import { XMLParser } from 'fast-xml-parser';
import { decideObserverOutput } from '../src/observer/index.js';
import { observationXml } from '../test/support/replies.js';
import { realisticCorpus } from './corpus.js';
import { summarize } from './stats.js';

export const name = 'parse';

export async function run(): Promise<Record<string, unknown>> {
  const corpus = realisticCorpus(2_000);
  const bytes = corpus.reduce((n, r) => n + Buffer.byteLength(r), 0);
  const bare = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: true, processEntities: true, htmlEntities: true });
  // The bare library parses the same blocks: the replies' XML without the prose around them.
  const blocks = corpus.map((r) => (r.includes('<') ? `<root>${r}</root>` : null)).filter((r): r is string => r !== null);

  const time = (fn: () => void, rounds: number) => {
    fn(); // warm up
    const started = performance.now();
    for (let i = 0; i < rounds; i += 1) fn();
    return (performance.now() - started) / rounds;
  };
  const oursMs = time(() => corpus.forEach((r) => decideObserverOutput(r)), 5);
  const bareMs = time(() => blocks.forEach((b) => bare.parse(b)), 5);

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
    ours_mb_per_s: +(bytes / 1e6 / (oursMs / 1000)).toFixed(1),
    ours_replies_per_s: Math.round(corpus.length / (oursMs / 1000)),
    bare_fast_xml_parser_mb_per_s: +(bytes / 1e6 / (bareMs / 1000)).toFixed(1),
    ratio_ours_vs_bare: +(oursMs / bareMs).toFixed(2),
    reply_300kb: { bytes: Buffer.byteLength(big), ...summarize(samples) },
    targets: { mb_per_s: 25, ratio_max: 1.5, p99_300kb_ms: 20 },
  };
}
