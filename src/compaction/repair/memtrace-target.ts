import type Database from 'better-sqlite3';
import { estimateTokens } from '../../context/token-estimate.js';
import { COMPACTION_PROMPT_VERSION } from '../prompts.js';
import { toSourceObservation } from '../compaction-store.js';
import { condensedSourceText, leafSourceText, type SourceSummary } from '../source-text.js';
import type { RepairRow, RepairTarget } from './target.js';

/** Repair over memtrace's own summary DAG (memory_summaries + summary_sources). */
export function memtraceRepairTarget(db: Database.Database, scope: { project?: string | null }, providerName: string): RepairTarget {
  const filter = scope.project === undefined ? '' : 'WHERE project IS ?';
  const rows = db.prepare(`SELECT id, kind, depth, token_count, content, model, level, project FROM memory_summaries ${filter} ORDER BY depth, id`);
  const leafSources = db.prepare(`
    SELECT o.id, o.type, o.title, o.subtitle, o.narrative, o.facts, o.files_modified, o.created_at
    FROM summary_sources s JOIN observations o ON o.id = s.observation_id WHERE s.summary_id = ? ORDER BY s.ordinal`);
  const summarySources = db.prepare(`
    SELECT m.id, m.content, m.earliest_at, m.latest_at FROM summary_sources s
    JOIN memory_summaries m ON m.id = s.source_summary_id WHERE s.summary_id = ? ORDER BY s.ordinal`);
  const consumers = db.prepare('SELECT DISTINCT summary_id FROM summary_sources WHERE source_summary_id = ?');
  const update = db.prepare(`
    UPDATE memory_summaries SET content = @content, token_count = @tokens, source_token_count = @sourceTokens, level = @level,
      model = @model, provider = @provider, prompt_version = @promptVersion, updated_at = @nowMs WHERE id = @id`);
  const setSourceTokens = db.prepare('UPDATE memory_summaries SET source_token_count = ? WHERE id = ?');

  const condensedInput = (id: number) => {
    const sources = summarySources.all(id) as Array<Record<string, unknown>>;
    const text = condensedSourceText(
      sources.map((s): SourceSummary => ({ content: s.content as string, earliestAt: s.earliest_at as number, latestAt: s.latest_at as number })),
    );
    return { text, ids: sources.map((s) => String(s.id)) };
  };

  const rewriteTx = db.transaction((row: RepairRow, r: Parameters<RepairTarget['rewrite']>[1]) => {
    update.run({
      id: Number(row.id),
      content: r.content,
      tokens: r.tokens,
      sourceTokens: r.sourceTokens,
      level: r.level,
      model: r.model,
      provider: providerName,
      promptVersion: COMPACTION_PROMPT_VERSION,
      nowMs: r.nowMs,
    });
    // A consumer's source size is measured on its sources' current text, which just changed.
    for (const { summary_id: consumer } of consumers.all(Number(row.id)) as Array<{ summary_id: number }>) {
      setSourceTokens.run(estimateTokens(condensedInput(consumer).text), consumer);
    }
  });

  return {
    name: 'memtrace',
    estimateTokens,
    rows: () =>
      ((scope.project === undefined ? rows.all() : rows.all(scope.project)) as Array<Record<string, unknown>>).map((r) => ({
        id: String(r.id),
        kind: r.kind as RepairRow['kind'],
        depth: r.depth as number,
        tokens: r.token_count as number,
        content: r.content as string,
        model: (r.model as string | null) ?? null,
        level: r.level as string,
        scope: (r.project as string | null) ?? null,
      })),
    source(row) {
      if (row.kind === 'leaf') {
        const observations = (leafSources.all(Number(row.id)) as Array<Record<string, unknown>>).map(toSourceObservation);
        if (observations.length === 0) return null;
        const text = leafSourceText(observations);
        return { text, tokens: estimateTokens(text), sourceSummaryIds: [] };
      }
      const input = condensedInput(Number(row.id));
      if (input.ids.length === 0) return null;
      return { text: input.text, tokens: estimateTokens(input.text), sourceSummaryIds: input.ids };
    },
    rewrite: (row, r) => rewriteTx.immediate(row, r),
  };
}
