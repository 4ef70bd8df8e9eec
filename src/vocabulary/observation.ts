/**
 * What the memory holds: an observation's type and fields, a session summary's fields. The observer
 * produces them, the store keeps them, search, context, the viewer, MCP and telemetry read them;
 * so they sit below all of those and import nothing.
 */

export const OBSERVATION_TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security', 'other'] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

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
