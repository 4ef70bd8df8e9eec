import type { Store } from '../src/store/index.js';
import { OBSERVATION_TYPES } from '../src/vocabulary/observation.js';

/**
 * Observation `i` of a synthetic project, as the context and compaction benches store them: the
 * login flow, 400 characters of narrative, one of 50 files, one minute older per index.
 */
export function insertLoginObservation(store: Store, i: number, where: { project: string; sessionId: string; now: number }): void {
  store.observations.insert(
    {
      type: OBSERVATION_TYPES[i % OBSERVATION_TYPES.length]!,
      title: `Observation ${i} about the login flow`,
      subtitle: 'what changed and why',
      narrative: 'n'.repeat(400),
      facts: ['fact one', 'fact two'],
      concepts: ['pattern'],
      files_read: [],
      files_modified: [`src/file${i % 50}.ts`],
    },
    {
      sessionId: where.sessionId,
      project: where.project,
      sourceMessageIds: [i],
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      promptVersion: 'obs-v1',
      discoveryTokens: 900,
      createdAt: where.now - i * 60_000,
    },
  );
}
