import type Database from 'better-sqlite3';
import { stripMarkers } from '../markers.js';
import { lcmEstimateTokens } from './lcm-tokens.js';
import type { RepairRow, RepairTarget } from './target.js';

/** The tables a lossless-claw database must have for repair (its src/db/migration.ts). */
const REQUIRED_TABLES = ['conversations', 'messages', 'summaries', 'summary_messages', 'summary_parents'];

class NotAnLcmDatabaseError extends Error {
  constructor(file: string, missing: string[]) {
    super(`${file} is not a lossless-claw database (missing table${missing.length > 1 ? 's' : ''} ${missing.join(', ')})`);
    this.name = 'NotAnLcmDatabaseError';
  }
}

/**
 * Repair inside a lossless-claw database, in its own schema and lineage direction: in
 * summary_parents, (summary_id = X, parent_summary_id = S) means S is one of the inputs X was
 * condensed from. Only columns it defines are written; `level` only where a build added it.
 */
export function lcmRepairTarget(db: Database.Database, file: string, scope: { conversationId?: number }): RepairTarget {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name));
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  if (missing.length > 0) throw new NotAnLcmDatabaseError(file, missing);
  const columns = new Set((db.prepare('PRAGMA table_info(summaries)').all() as Array<{ name: string }>).map((c) => c.name));
  const hasModel = columns.has('model');
  const hasLevel = columns.has('level');
  const ftsTables = ['summaries_fts', 'summaries_fts_cjk'].filter((t) => tables.has(t));

  const filter = scope.conversationId === undefined ? '' : 'WHERE conversation_id = ?';
  const rows = db.prepare(
    `SELECT summary_id, kind, depth, token_count, content, ${hasModel ? 'model' : 'NULL AS model'}, ${hasLevel ? 'level' : 'NULL AS level'}, conversation_id
     FROM summaries ${filter} ORDER BY depth, created_at, summary_id`,
  );
  const messages = db.prepare(`
    SELECT m.role, m.content FROM summary_messages sm JOIN messages m ON m.message_id = sm.message_id
    WHERE sm.summary_id = ? ORDER BY sm.ordinal`);
  const sources = db.prepare(`
    SELECT s.summary_id, s.content FROM summary_parents p JOIN summaries s ON s.summary_id = p.parent_summary_id
    WHERE p.summary_id = ? ORDER BY p.ordinal`);
  const consumersOf = db.prepare('SELECT summary_id FROM summary_parents WHERE parent_summary_id = ?');
  const kindDepth = db.prepare('SELECT kind, depth FROM summaries WHERE summary_id = ?');
  const update = db.prepare(
    `UPDATE summaries SET content = @content, token_count = @tokens${hasModel ? ', model = @model' : ''}${hasLevel ? ', level = @level' : ''} WHERE summary_id = @id`,
  );
  const leafAggregate = db.prepare(`
    SELECT coalesce(sum(m.token_count), 0) AS source_tokens FROM summary_messages sm JOIN messages m ON m.message_id = sm.message_id WHERE sm.summary_id = ?`);
  const condensedAggregate = db.prepare(`
    SELECT coalesce(sum(s.descendant_count + 1), 0) AS dc, coalesce(sum(s.token_count + s.descendant_token_count), 0) AS dtc,
      coalesce(sum(s.source_message_token_count), 0) AS smtc
    FROM summary_parents p JOIN summaries s ON s.summary_id = p.parent_summary_id WHERE p.summary_id = ?`);
  const setAggregates = db.prepare(
    'UPDATE summaries SET descendant_count = ?, descendant_token_count = ?, source_message_token_count = ? WHERE summary_id = ?',
  );
  const fts = ftsTables.map((table) => ({
    update: db.prepare(`UPDATE ${table} SET content = ? WHERE summary_id = ?`),
    insert: db.prepare(`INSERT INTO ${table} (summary_id, content) VALUES (?, ?)`),
  }));

  /** Keeps lossless-claw's aggregates true: leaf from its messages, condensed from its sources. */
  const recompute = (id: string) => {
    const row = kindDepth.get(id) as { kind: string; depth: number } | undefined;
    if (!row) return;
    if (row.kind === 'leaf') {
      setAggregates.run(0, 0, (leafAggregate.get(id) as { source_tokens: number }).source_tokens, id);
      return;
    }
    // No sources gives 0/0/0, as lossless-claw's own backfill computes it.
    const a = condensedAggregate.get(id) as { dc: number; dtc: number; smtc: number };
    setAggregates.run(a.dc, a.dtc, a.smtc, id);
  };

  /** Every summary the rewritten one feeds, directly or not, shallowest first so sums build on fresh values. */
  const ancestorsOf = (id: string): string[] => {
    const seen = new Set<string>();
    const queue = [id];
    while (queue.length > 0) {
      for (const { summary_id: up } of consumersOf.all(queue.shift()!) as Array<{ summary_id: string }>) {
        if (seen.has(up) || up === id) continue;
        seen.add(up);
        queue.push(up);
      }
    }
    return [...seen].sort((a, b) => (kindDepth.get(a) as { depth: number }).depth - (kindDepth.get(b) as { depth: number }).depth);
  };

  const rewriteTx = db.transaction((row: RepairRow, r: Parameters<RepairTarget['rewrite']>[1]) => {
    update.run({ id: row.id, content: r.content, tokens: r.tokens, model: r.model, level: r.level });
    for (const index of fts) if (index.update.run(r.content, row.id).changes === 0) index.insert.run(row.id, r.content);
    recompute(row.id);
    for (const up of ancestorsOf(row.id)) recompute(up);
  });

  return {
    name: 'lcm',
    estimateTokens: lcmEstimateTokens,
    rows: () =>
      ((scope.conversationId === undefined ? rows.all() : rows.all(scope.conversationId)) as Array<Record<string, unknown>>).map((r) => ({
        id: r.summary_id as string,
        kind: r.kind as RepairRow['kind'],
        depth: r.depth as number,
        tokens: r.token_count as number,
        content: r.content as string,
        model: (r.model as string | null) ?? null,
        level: (r.level as string | null) ?? null,
        scope: String(r.conversation_id),
      })),
    source(row) {
      if (row.kind === 'leaf') {
        const parts = (messages.all(row.id) as Array<{ role: string; content: string }>).map((m) => `${m.role}: ${stripMarkers(m.content)}`);
        if (parts.length === 0) return null;
        const text = parts.join('\n\n');
        return { text, tokens: lcmEstimateTokens(text), sourceSummaryIds: [] };
      }
      const inputs = sources.all(row.id) as Array<{ summary_id: string; content: string }>;
      if (inputs.length === 0) return null;
      const text = inputs.map((s, i) => `## Part ${i + 1}\n${stripMarkers(s.content)}`).join('\n\n');
      return { text, tokens: lcmEstimateTokens(text), sourceSummaryIds: inputs.map((s) => s.summary_id) };
    },
    rewrite: (row, r) => rewriteTx.immediate(row, r),
  };
}
