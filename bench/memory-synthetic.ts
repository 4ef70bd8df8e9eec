/**
 * A large store for latency figures, made from the retrieval corpus's own text so the index holds
 * a developer's vocabulary: each observation takes a title from one item, three to six sentences
 * from others, a few facts, concepts and files. Seeded, so every run builds the same store.
 */
import type { ObservationType, ParsedObservation } from '../src/vocabulary/observation.js';
import type { Store } from '../src/store/index.js';
import { seededRandom } from '../src/fleet/dashboards/prng.js';
import type { CorpusItem } from './memory-corpus.js';

const TYPES: readonly ObservationType[] = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security', 'other'];

export function fillStore(store: Store, corpus: readonly CorpusItem[], count: number, options: { seed?: number; startMs?: number } = {}): void {
  const random = seededRandom(options.seed ?? 19);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences = corpus.flatMap((c) => c.observation.narrative.split(/(?<=[.;])\s+/)).filter((s) => s.length > 30 && s.length < 400);
  const titles = corpus.map((c) => c.observation.title);
  const files = [...new Set(corpus.flatMap((c) => [...c.observation.files_modified, ...c.observation.files_read]))];
  const concepts = [...new Set(corpus.flatMap((c) => c.observation.concepts))];
  const startMs = options.startMs ?? Date.UTC(2025, 0, 1);
  const batch = store.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i += 1) {
      const observation: ParsedObservation = {
        type: pick(TYPES),
        title: `${pick(titles)} (${i})`,
        subtitle: random() < 0.5 ? pick(sentences).slice(0, 120) : '',
        narrative: Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(sentences)).join(' '),
        facts: Array.from({ length: Math.floor(random() * 3) }, () => pick(sentences).slice(0, 160)),
        concepts: Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(concepts)),
        files_read: random() < 0.5 ? [pick(files)] : [],
        files_modified: random() < 0.6 ? [pick(files), pick(files)] : [],
      };
      store.observations.insert(observation, {
        sessionId: `bench-session-${Math.floor(i / 40)}`,
        project: `/work/project-${i % 7}`,
        sourceMessageIds: [],
        provider: 'replay',
        model: null,
        promptVersion: 'bench',
        discoveryTokens: null,
        createdAt: startMs + i * 60_000,
      });
    }
  });
  for (let at = 0; at < count; at += 5_000) batch(at, Math.min(count, at + 5_000));
}
