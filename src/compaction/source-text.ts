import { stripMarkers } from './markers.js';

/** The parts of an observation a summarizer reads. */
export interface SourceObservation {
  id: number;
  type: string;
  title: string;
  subtitle: string;
  narrative: string;
  facts: readonly string[];
  filesModified: readonly string[];
  createdAt: number;
}

export interface SourceSummary {
  content: string;
  earliestAt: number;
  latestAt: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One observation as summarizer input. Pure; markers are stripped so none can be echoed back. */
export function observationSourceText(o: SourceObservation): string {
  const lines = [`[${o.type}] ${o.title}${o.subtitle ? ` — ${o.subtitle}` : ''} (${day(o.createdAt)})`];
  if (o.narrative) lines.push(o.narrative);
  for (const fact of o.facts) lines.push(`- ${fact}`);
  if (o.filesModified.length > 0) lines.push(`files: ${o.filesModified.join(', ')}`);
  return stripMarkers(lines.join('\n'));
}

export function leafSourceText(observations: readonly SourceObservation[]): string {
  return observations.map(observationSourceText).join('\n\n');
}

/** Source summaries in order, each with its date range; markers stripped. */
export function condensedSourceText(sources: readonly SourceSummary[]): string {
  return sources.map((s, i) => `## Part ${i + 1} (${day(s.earliestAt)} to ${day(s.latestAt)})\n${stripMarkers(s.content)}`).join('\n\n');
}
