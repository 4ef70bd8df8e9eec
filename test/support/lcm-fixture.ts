import { lcmEstimateTokens } from '../../src/compaction/repair/lcm-tokens.js';
import { createLcmDatabase, expectedAggregates } from './lcm-schema.js';

const FILLER = 'The gateway retried the upstream call, logged the status and kept the session open while the user waited. ';

/**
 * One conversation, 12 messages, leaves A–D over three messages each, condensed X = (A, B) and
 * Y = (C, D) at depth 1, Z = (X, Y) at depth 2. Fallbacks at two depths: B (tail marker), D
 * (lossless-claw's fallback note at the start) and X (tail marker, emergency model label).
 * C is a real summary that quotes a marker mid-text.
 */
export function seedLcmFixture(file: string): void {
  const db = createLcmDatabase(file);
  db.prepare("INSERT INTO conversations (conversation_id, session_id, session_key) VALUES (1, 'sess-1', 'agent:main')").run();
  const message = db.prepare('INSERT INTO messages (conversation_id, seq, role, content, token_count, created_at) VALUES (1, ?, ?, ?, ?, ?)');
  for (let i = 0; i < 12; i += 1) {
    const content = `topic-m${i}: ${FILLER.repeat(3)}`;
    message.run(i, i % 2 === 0 ? 'user' : 'assistant', content, lcmEstimateTokens(content), `2026-03-0${1 + Math.floor(i / 3)} 10:0${i % 3}:00`);
    db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)').run(i + 1, content);
  }
  const contents: Record<string, string> = {
    sum_aaaaaaaaaaaaaaaa: 'topic-m0 topic-m1 topic-m2: the gateway retried and logged the status.',
    sum_bbbbbbbbbbbbbbbb: `user: topic-m3: ${FILLER.repeat(4)}\n[Truncated from 412 tokens]`,
    sum_cccccccccccccccc:
      'topic-m6 topic-m7 topic-m8: lossless-claw marks cut summaries with [Truncated from N tokens]; this one is whole and describes the retry policy in detail.',
    sum_dddddddddddddddd: `[LCM fallback summary; truncated for context management]\nuser: topic-m9 ${FILLER.repeat(3)}`,
    sum_xxxxxxxxxxxxxxxx: `topic-m0 topic-m3 ${FILLER.repeat(3)}\n[Truncated from 380 tokens]`,
    sum_yyyyyyyyyyyyyyyy: 'topic-m6 topic-m9: retry policy and session handling, condensed.',
    sum_zzzzzzzzzzzzzzzz: 'topic-m0 topic-m9: the whole conversation in one line.',
  };
  const insert = db.prepare(
    "INSERT INTO summaries (summary_id, conversation_id, kind, depth, content, token_count, earliest_at, latest_at, model, created_at) VALUES (?, 1, ?, ?, ?, ?, '2026-03-01', '2026-03-04', ?, ?)",
  );
  const leaves = ['sum_aaaaaaaaaaaaaaaa', 'sum_bbbbbbbbbbbbbbbb', 'sum_cccccccccccccccc', 'sum_dddddddddddddddd'];
  leaves.forEach((id, i) => {
    insert.run(id, 'leaf', 0, contents[id], lcmEstimateTokens(contents[id]!), 'claude-sonnet-4-5', `2026-03-05 00:00:0${i}`);
    for (let k = 0; k < 3; k += 1) db.prepare('INSERT INTO summary_messages (summary_id, message_id, ordinal) VALUES (?, ?, ?)').run(id, i * 3 + k + 1, k);
  });
  const condensed: Array<[string, number, string[], string]> = [
    ['sum_xxxxxxxxxxxxxxxx', 1, ['sum_aaaaaaaaaaaaaaaa', 'sum_bbbbbbbbbbbbbbbb'], 'emergency-fallback'],
    ['sum_yyyyyyyyyyyyyyyy', 1, ['sum_cccccccccccccccc', 'sum_dddddddddddddddd'], 'claude-sonnet-4-5'],
    ['sum_zzzzzzzzzzzzzzzz', 2, ['sum_xxxxxxxxxxxxxxxx', 'sum_yyyyyyyyyyyyyyyy'], 'claude-sonnet-4-5'],
  ];
  for (const [id, depth, sources, model] of condensed) {
    insert.run(id, 'condensed', depth, contents[id], lcmEstimateTokens(contents[id]!), model, `2026-03-06 00:00:0${depth}`);
    // lossless-claw's direction: (summary_id = the condensed summary, parent_summary_id = one of its inputs).
    for (const [k, s] of sources.entries()) db.prepare('INSERT INTO summary_parents (summary_id, parent_summary_id, ordinal) VALUES (?, ?, ?)').run(id, s, k);
  }
  for (const id of Object.keys(contents)) {
    db.prepare('INSERT INTO summaries_fts (summary_id, content) VALUES (?, ?)').run(id, contents[id]);
    db.prepare('INSERT INTO summaries_fts_cjk (summary_id, content) VALUES (?, ?)').run(id, contents[id]);
  }
  const setAgg = db.prepare('UPDATE summaries SET descendant_count = ?, descendant_token_count = ?, source_message_token_count = ? WHERE summary_id = ?');
  for (const [id, a] of expectedAggregates(db)) setAgg.run(a.descendant_count, a.descendant_token_count, a.source_message_token_count, id);
  db.prepare("INSERT INTO context_items (conversation_id, ordinal, item_type, summary_id) VALUES (1, 0, 'summary', 'sum_zzzzzzzzzzzzzzzz')").run();
  db.prepare("INSERT INTO context_items (conversation_id, ordinal, item_type, message_id) VALUES (1, 1, 'message', 12)").run();
  db.close();
}
