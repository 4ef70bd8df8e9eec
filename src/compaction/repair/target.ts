import type { CompactionLevel } from '../prompts.js';

/** One stored summary as repair reads it, from memtrace's DAG or a lossless-claw database. */
export interface RepairRow {
  id: string;
  kind: 'leaf' | 'condensed';
  depth: number;
  tokens: number;
  content: string;
  /** null when the store has no such column. */
  model: string | null;
  level: string | null;
  /** Conversation id (lossless-claw) or project (memtrace); null for memtrace rows without a project. */
  scope: string | null;
}

export interface RepairSource {
  /** Summarizer input, markers stripped. */
  text: string;
  tokens: number;
  /** Ids of the source summaries (condensed) so a parent waits for its repaired children. */
  sourceSummaryIds: string[];
}

export interface RepairRewrite {
  content: string;
  tokens: number;
  level: CompactionLevel;
  model: string;
  sourceTokens: number;
  nowMs: number;
}

/** What repair needs from a store; memtrace's and lossless-claw's implement it in their own schema. */
export interface RepairTarget {
  readonly name: 'memtrace' | 'lcm';
  /** The store's own token estimate, so written counts agree with what it would compute. */
  estimateTokens(text: string): number;
  /** Every summary in scope, for detection. */
  rows(): RepairRow[];
  /** The summary's inputs as they are now (leaf: its source messages/observations; condensed: its sources' current content); null if it has none. */
  source(row: RepairRow): RepairSource | null;
  /** One transaction: the new content and token count, the lineage aggregates that depend on them, any search index. */
  rewrite(row: RepairRow, rewrite: RepairRewrite): void;
}
