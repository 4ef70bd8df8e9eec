/**
 * `memtrace worker --watch` lists every host's default transcripts folder, as `memtrace mine`
 * does without --host: sessions the hooks never saw (from before the install, or while the hooks
 * were not installed) are mined whichever agent ran them. The real worker process, the hosts' real
 * transcripts (test/fixtures/hosts) where each host keeps them under HOME or its own home variable.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const GEMINI_ID = hostPayloads('gemini-cli', 'session')[0]!.payload.session_id as string;
const CODEX_ID = hostPayloads('codex', 'session')[0]!.payload.session_id as string;
const COPILOT_ID = '7a162ee4-0020-4a52-ae4d-1b371b7653e2';

/** Puts a fixture where its host writes it, last written ten minutes ago (idle: the watcher reads it). */
function place(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  const tenMinutesAgo = new Date(Date.now() - 600_000);
  fs.utimesSync(to, tenMinutesAgo, tenMinutesAgo);
}

describe('memtrace worker --watch', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    temp?.cleanup();
  });

  it('mines Gemini CLI’s, Codex’s and Copilot CLI’s sessions from their default folders too, not only Claude Code’s', async () => {
    temp = makeTempDir();
    const home = path.join(temp.dir, 'home');
    const copilotHome = path.join(temp.dir, 'copilot-home');
    const dataDir = path.join(temp.dir, 'data');
    place(hostTranscript('gemini-cli', 'chat.jsonl'), path.join(home, '.gemini/tmp/proj/chats/session-2026-11-25T14-14-bbb48c99.jsonl'));
    place(hostTranscript('codex', 'rollout.jsonl'), path.join(home, `.codex/sessions/2026/11/25/rollout-2026-11-25T14-15-06-${CODEX_ID}.jsonl`));
    place(hostTranscript('copilot', 'events.jsonl'), path.join(copilotHome, 'session-state', COPILOT_ID, 'events.jsonl'));
    // No Claude Code projects folder at all: a host not installed is no problem.
    worker = await startChildWorker(
      { HOME: home, COPILOT_HOME: copilotHome, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' },
      { args: ['--watch'] },
    );
    const w = worker;
    await waitFor(() => w.output().includes('watching transcripts in'));
    for (const folder of [path.join(home, '.gemini/tmp'), path.join(home, '.codex/sessions'), path.join(copilotHome, 'session-state')])
      expect(w.output()).toContain(folder);

    const toolEvents = () => {
      const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare('SELECT session_id, count(*) AS n FROM tool_events GROUP BY session_id').all() as Array<{ session_id: string; n: number }>;
        return Object.fromEntries(rows.map((r) => [r.session_id, r.n]));
      } finally {
        db.close();
      }
    };
    // The first pass runs 5 s after the start; a loaded machine gets the time it needs.
    await waitFor(() => Object.keys(toolEvents()).length === 3, 60_000);
    // Every finished call of each session: the tool events their hooks would have delivered.
    expect(toolEvents()).toEqual({ [GEMINI_ID]: 5, [CODEX_ID]: 4, [COPILOT_ID]: 5 });
  }, 90_000);
});
