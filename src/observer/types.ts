/** Values of the drop-or-parse decision (docs/interfaces.md#decision-json). Shared by the parser, the store and telemetry. */

export const OBSERVATION_TYPES = [
  'bugfix',
  'feature',
  'refactor',
  'change',
  'discovery',
  'decision',
  'security',
  'other',
] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

/** Computed only to count and to log a preview; never drives behaviour. */
export const OUTPUT_CLASSES = ['xml', 'malformed_xml', 'idle', 'prose'] as const;
export type OutputClass = (typeof OUTPUT_CLASSES)[number];

export interface ParsedObservation {
  type: ObservationType;
  title: string;
  subtitle: string;
  narrative: string;
  facts: string[];
  concepts: string[];
  files_read: string[];
  files_modified: string[];
}

export interface ParsedSummary {
  request: string;
  investigated: string;
  learned: string;
  completed: string;
  next_steps: string;
  notes: string;
}

export interface DecisionCounts {
  blocks: number;
  ghost: number;
  truncated: number;
  unknown_type: number;
}

export interface ParseDecision {
  outcome: 'parsed' | 'dropped';
  class: OutputClass;
  observations: ParsedObservation[];
  summary: ParsedSummary | null;
  skipped: boolean;
  skip_reason: string | null;
  counts: DecisionCounts;
}
