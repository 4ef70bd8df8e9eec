/** Values of the drop-or-parse decision (docs/interfaces.md#decision-json): what the parser made of one reply, counted by telemetry. */

import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';

/** Computed only to count and to log a preview; never drives behaviour. */
export const OUTPUT_CLASSES = ['xml', 'malformed_xml', 'idle', 'prose'] as const;
export type OutputClass = (typeof OUTPUT_CLASSES)[number];

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
  /** The events each observation names in its `<sources>` (`e1`, …), aligned with `observations`; empty when it names none. */
  sources: string[][];
  summary: ParsedSummary | null;
  skipped: boolean;
  skip_reason: string | null;
  counts: DecisionCounts;
}
