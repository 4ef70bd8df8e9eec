import type { ObservationType } from '../vocabulary/observation.js';

export interface ContextObservation {
  id: number;
  type: ObservationType;
  title: string;
  subtitle: string;
  facts: string[];
  filesModified: string[];
  createdAt: number;
  discoveryTokens: number | null;
  /** The subagent type that made it (`Explore`); null for the main agent. */
  subagent?: string | null;
  /** The member of a shared project who made it (their label); null: this machine. */
  origin?: string | null;
}

export interface ContextSummary {
  request: string;
  learned: string;
  completed: string;
  next_steps: string;
  createdAt: number;
  origin?: string | null;
}

// Control characters in stored text could corrupt the agent's view of the context (tab and newline stay).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const clean = (text: string) => text.replace(CONTROL, '').trim();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function renderHeader(project: string | null): string {
  return `# memtrace context — ${clean(project ?? 'all projects')}\n`;
}

export function renderSummary(summary: ContextSummary): string {
  const lines = [`\n## Last session (${day(summary.createdAt)}${summary.origin ? ` · ${clean(summary.origin)}'s` : ''})`];
  if (summary.request) lines.push(`- Asked: ${clean(summary.request)}`);
  if (summary.completed) lines.push(`- Done: ${clean(summary.completed)}`);
  if (summary.learned) lines.push(`- Learned: ${clean(summary.learned)}`);
  if (summary.next_steps) lines.push(`- Next: ${clean(summary.next_steps)}`);
  return `${lines.join('\n')}\n`;
}

export const OBSERVATIONS_HEADING = '\n## Recent observations\n';

export function renderObservation(o: ContextObservation): string {
  const by = `${o.subagent ? ` · subagent ${clean(o.subagent)}` : ''}${o.origin ? ` · from ${clean(o.origin)}` : ''}`;
  const lines = [`- **[${o.type}] ${clean(o.title)}** (${day(o.createdAt)}${by})${o.subtitle ? ` — ${clean(o.subtitle)}` : ''}`];
  for (const fact of o.facts.slice(0, 3)) lines.push(`  - ${clean(fact)}`);
  if (o.filesModified.length > 0) lines.push(`  - files: ${o.filesModified.slice(0, 5).map(clean).join(', ')}`);
  return `${lines.join('\n')}\n`;
}
