import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsMarker, startCompaction, summaryShapeProblem } from '../../src/compaction/index.js';
import { memtraceRepairTarget } from '../../src/compaction/repair/memtrace-target.js';
import { estimateTokens } from '../../src/context/index.js';
import { silentLogger } from '../../src/log.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { openStore } from '../../src/store/index.js';
import { seededRandom } from '../../src/fleet/dashboards/prng.js';
import { fakeClock, MINUTE, promptOf, recordingTimers, seedObservations, SMALL_CONFIG } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm, type FakeStep } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Every kind of answer a summarizer has been seen to give, including the ones that must never be stored. */
function randomAnswer(random: () => number, body: unknown): FakeStep {
  const input = promptOf(body);
  const tokens = estimateTokens(input);
  const pick = Math.floor(random() * 12);
  const short = `Summary ${Math.floor(random() * 1000)}: the retry path backs off and re-reads the queue.`;
  switch (pick) {
    case 0:
      return { kind: 'status', status: 500 };
    case 1:
      return { kind: 'status', status: 429, errorType: 'rate_limit_error' };
    case 2:
      return { kind: 'text', text: '' };
    case 3:
      return { kind: 'text', text: `${input}${input}` }; // longer than its input
    case 4:
      return { kind: 'text', text: `${input.slice(0, 300)}\n[Truncated from ${tokens} tokens]` }; // the classic fallback
    case 5:
      return { kind: 'text', text: `[LCM fallback summary; truncated for context management]\n${short}` };
    case 6:
      return { kind: 'text', text: `${short} It quoted [Truncated from 90 tokens] mid-text. ${short}` };
    case 7:
      return { kind: 'text', text: observationXml({ type: 'discovery', title: 'Observer output, not a summary' }) };
    case 8:
      return { kind: 'text', text: input.slice(0, 400) }; // the prompt given back, cut short
    case 9:
      return { kind: 'text', text: input.split('<input>\n')[1]?.slice(0, 300) ?? short }; // a verbatim excerpt of the input
    default:
      return { kind: 'text', text: short };
  }
}

describe('property: nothing stored is garbage', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm('anthropic');
  });
  afterAll(() => llm.close());

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`no summary carries a marker, observer XML or the prompt, or is longer than its sources (seed ${seed})`, async () => {
      const random = seededRandom(seed);
      llm.setFallback({ kind: 'dynamic', respond: (body) => randomAnswer(random, body) });
      const temp = makeTempDir();
      const store = openStore(path.join(temp.dir, 'memtrace.db'));
      const clock = fakeClock();
      const compaction = startCompaction(SMALL_CONFIG, {
        db: store.db,
        provider: createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }),
        clock,
        timers: recordingTimers(),
        log: silentLogger,
      });
      try {
        seedObservations(store, 'app', 40 + Math.floor(random() * 40));
        for (let pass = 0; pass < 25; pass += 1) {
          await compaction.runPass();
          clock.advance(31 * MINUTE);
        }
        const target = memtraceRepairTarget(store.db, {}, 'anthropic');
        const rows = target.rows();
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          expect(containsMarker(row.content), `summary ${row.id} carries a marker`).toBe(false);
          expect(summaryShapeProblem(row.content), `summary ${row.id} breaks the output contract`).toBeNull();
          expect(row.content.trim()).not.toBe('');
          expect(row.tokens).toBe(estimateTokens(row.content));
          expect(row.tokens, `summary ${row.id} is not shorter than its sources`).toBeLessThan(target.source(row)!.tokens);
          expect(row.level).not.toBe('fallback');
        }
      } finally {
        await compaction.stop();
        store.close();
        temp.cleanup();
      }
    });
  }
});
