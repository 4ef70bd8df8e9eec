import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, runRetentionPass } from '../../src/memory/retention.js';
import { createRawData, openStore, PRUNE_START, type Store } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 1);

/** `n` ended sessions, each with its first prompt and a written file, all last touched at `updatedAt`. */
function sessions(store: Store, n: number, updatedAt: number, prefix = 's'): void {
  for (let i = 0; i < n; i += 1) {
    const id = `${prefix}${i}`;
    store.sessions.init({ sessionId: id, prompt: `prompt of ${id}`, promptId: `p-${id}`, nowMs: updatedAt });
    store.db.prepare('INSERT INTO session_files_written (session_id, path) VALUES (?, ?)').run(id, `/work/${id}.ts`);
  }
  store.db.prepare('UPDATE sessions SET updated_at = ?').run(updatedAt);
}

const count = (store: Store, sql: string) => Number(store.db.prepare(sql).pluck().get());

/**
 * Issue 36: each retention batch read the sessions table from its oldest row, past every session
 * earlier batches had already cleared (their prompt and written files gone), so a batch's work grew
 * with the pass and a pass at a million observations ran for over 23 minutes. A pass now keeps its
 * place from batch to batch.
 */
describe('a retention pass keeps its place', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.cleanup());

  it('does not look again at rows an earlier batch of the same pass went past', () => {
    temp = makeTempDir('memtrace-retention-cursor-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    try {
      sessions(store, 30, T0);
      const raw = createRawData(store.db);
      const cutoff = T0 + DAY_MS;
      const first = raw.pruneProcessed(cutoff, 10, PRUNE_START);
      expect(first).toMatchObject({ sessionFiles: 10, done: false });
      // A row behind the cursor becomes prunable again: the same pass does not go back for it…
      store.db.prepare("UPDATE sessions SET prompt = 'again' WHERE session_id = 's0'").run();
      const second = raw.pruneProcessed(cutoff, 10, first.next);
      expect(second.sessionFiles).toBe(10);
      expect(store.sessions.get('s0')!.prompt).toBe('again');
      // …the next pass, starting afresh, does.
      raw.pruneProcessed(cutoff, 100, PRUNE_START);
      expect(store.sessions.get('s0')!.prompt).toBeNull();
    } finally {
      store.close();
    }
  });

  it('prunes every row across batch boundaries, rows of the same instant included, and keeps what waits or is recent', async () => {
    temp = makeTempDir('memtrace-retention-ties-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    try {
      // 25 old sessions touched at the same instant: ties straddle every batch of 10.
      sessions(store, 25, T0);
      // One old session still waiting for its observer call (a pending queue row): kept.
      store.sessions.init({ sessionId: 'waiting', prompt: 'waiting prompt', promptId: 'pw', nowMs: T0 });
      store.db.prepare("INSERT INTO session_files_written (session_id, path) VALUES ('waiting', '/work/w.ts')").run();
      store.queue.enqueue({
        sessionId: 'waiting',
        kind: 'observation',
        toolUseId: 'tu-waiting',
        payload: { kind: 'post_tool_use', session_id: 'waiting', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'ok', at: T0 },
        nowMs: T0,
      });
      store.db.prepare("UPDATE sessions SET updated_at = ? WHERE session_id = 'waiting'").run(T0);
      // A recent session: kept.
      store.sessions.init({ sessionId: 'recent', prompt: 'recent prompt', promptId: 'pr', nowMs: T0 + 40 * DAY_MS });
      store.db.prepare("INSERT INTO session_files_written (session_id, path) VALUES ('recent', '/work/r.ts')").run();

      const report = await runRetentionPass(
        { rawRetentionDays: 30, maxDbBytes: Number.MAX_SAFE_INTEGER, batch: 10 },
        { raw: createRawData(store.db), pruneSpool: () => 0, pause: async () => undefined },
        T0 + 41 * DAY_MS,
      );
      expect(report.removed.sessionFiles).toBe(25);
      expect(count(store, 'SELECT count(*) FROM session_files_written')).toBe(2);
      expect(count(store, "SELECT count(*) FROM sessions WHERE prompt IS NOT NULL AND session_id LIKE 's%'")).toBe(0);
      expect(count(store, "SELECT count(*) FROM session_prompts WHERE session_id LIKE 's%'")).toBe(0);
      expect(store.sessions.get('waiting')!.prompt).toBe('waiting prompt');
      expect(store.sessions.prompts('waiting')).toHaveLength(1);
      expect(store.sessions.get('recent')!.prompt).toBe('recent prompt');
      expect(report.steps).toBeGreaterThanOrEqual(3);
    } finally {
      store.close();
    }
  });
});
