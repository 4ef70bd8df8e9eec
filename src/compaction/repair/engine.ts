import { summarizeWithEscalation, skipReasonOf } from '../escalation.js';
import { fallbackReasons, type FallbackReason } from '../markers.js';
import type { Summarize } from '../summarizer.js';
import type { RepairRow, RepairTarget } from './target.js';

export interface RepairFinding {
  id: string;
  kind: 'leaf' | 'condensed';
  depth: number;
  tokens: number;
  scope: string | null;
  model: string | null;
  level: string | null;
  reasons: FallbackReason[];
}

export type RepairOutcome =
  | { status: 'repaired'; level: 'normal' | 'aggressive'; tokensAfter: number; sourceTokens: number }
  | { status: 'failed'; reason: string }
  | { status: 'skipped'; reason: 'limit' | 'source_unrepaired' | 'provider_unavailable' };

export interface RepairEntry extends RepairFinding {
  outcome: RepairOutcome;
}

export interface RepairReport {
  found: number;
  repaired: number;
  failed: number;
  skipped: number;
  entries: RepairEntry[];
}

/** Fallback summaries in the target, bottom-up (leaves first, then by depth). */
export function scanTarget(target: RepairTarget): RepairFinding[] {
  return target
    .rows()
    .map((row) => ({ row, reasons: fallbackReasons(row) }))
    .filter((f) => f.reasons.length > 0)
    .map(({ row, reasons }) => findingOf(row, reasons))
    .sort((a, b) => a.depth - b.depth || compareIds(a.id, b.id));
}

/** Errors no later summary can get past this run: stop asking the provider. */
const RUN_STOPPERS = new Set(['auth', 'quota']);

/**
 * Re-summarizes fallbacks bottom-up: a leaf from its source messages, a condensed summary from its
 * sources as repaired moments ago. A candidate that is empty, carries a marker or does not shrink
 * its input is rejected (nothing written); a parent whose source is still a fallback waits.
 */
export async function applyRepairs(
  target: RepairTarget,
  summarize: Summarize,
  options: { max: number; nowMs: () => number; onProgress?: (entry: RepairEntry, index: number, total: number) => void },
): Promise<RepairReport> {
  const rowsById = new Map(target.rows().map((r) => [r.id, r]));
  const findings = scanTarget(target);
  const broken = new Set(findings.map((f) => f.id));
  const entries: RepairEntry[] = [];
  let attempted = 0;
  let stopReason: string | null = null;
  for (const finding of findings) {
    const row = rowsById.get(finding.id)!;
    const outcome = await repairOne(row);
    if (outcome.status === 'repaired') broken.delete(row.id);
    const entry = { ...finding, outcome };
    entries.push(entry);
    options.onProgress?.(entry, entries.length, findings.length);
  }
  return {
    found: findings.length,
    repaired: entries.filter((e) => e.outcome.status === 'repaired').length,
    failed: entries.filter((e) => e.outcome.status === 'failed').length,
    skipped: entries.filter((e) => e.outcome.status === 'skipped').length,
    entries,
  };

  async function repairOne(row: RepairRow): Promise<RepairOutcome> {
    if (stopReason !== null) return { status: 'skipped', reason: 'provider_unavailable' };
    const source = target.source(row);
    if (source === null || source.text.trim() === '') return { status: 'failed', reason: 'no_sources' };
    if (source.sourceSummaryIds.some((id) => broken.has(id))) return { status: 'skipped', reason: 'source_unrepaired' };
    if (attempted >= options.max) return { status: 'skipped', reason: 'limit' };
    attempted += 1;
    const result = await summarizeWithEscalation(summarize, { kind: row.kind, sourceText: source.text, sourceTokens: source.tokens });
    if (result.kind === 'failed') {
      const reason = skipReasonOf(result.outcome);
      if (RUN_STOPPERS.has(reason)) stopReason = reason;
      return { status: 'failed', reason };
    }
    target.rewrite(row, {
      content: result.text,
      tokens: result.tokens,
      level: result.level,
      model: result.model,
      sourceTokens: source.tokens,
      nowMs: options.nowMs(),
    });
    return { status: 'repaired', level: result.level, tokensAfter: result.tokens, sourceTokens: source.tokens };
  }
}

function findingOf(row: RepairRow, reasons: FallbackReason[]): RepairFinding {
  return { id: row.id, kind: row.kind, depth: row.depth, tokens: row.tokens, scope: row.scope, model: row.model, level: row.level, reasons };
}

/** Numeric ids (memtrace) in number order, others (lossless-claw's sum_…) as text. */
function compareIds(a: string, b: string): number {
  return /^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0;
}
