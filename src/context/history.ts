import { CONTROL } from './render.js';
import { estimateTokenUnits } from './token-estimate.js';

/** A compacted summary as context injection sees it (the top of the DAG, or one level below). */
export interface ContextHistorySummary {
  id: number;
  depth: number;
  content: string;
  observationCount: number;
  earliestAt: number;
  latestAt: number;
  /** Its sources, oldest first, when loaded (the newest condensed summaries only). */
  sources?: readonly ContextHistorySummary[];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const HISTORY_HEADING = '\n## Earlier history (compacted)\n';

function renderHistorySummary(s: ContextHistorySummary): string {
  const range = day(s.earliestAt) === day(s.latestAt) ? day(s.earliestAt) : `${day(s.earliestAt)} to ${day(s.latestAt)}`;
  const body = s.content
    .replace(CONTROL, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .map((line) => `  ${line}`)
    .join('\n');
  return `- **${range}** (${s.observationCount} observation${s.observationCount === 1 ? '' : 's'})\n${body}\n`;
}

/**
 * The best-fitting history within `capUnits` (quarter-token units, heading included): the top
 * summaries newest first while they fit, then the newest condensed ones opened into their more
 * detailed sources where the room allows. Returned oldest first. Pure.
 */
export function selectHistory(
  topNewestFirst: readonly ContextHistorySummary[],
  capUnits: number,
): { blocks: string[]; units: number; chosen: ContextHistorySummary[] } {
  const headingUnits = estimateTokenUnits(HISTORY_HEADING);
  if (topNewestFirst.length === 0 || headingUnits >= capUnits) return { blocks: [], units: 0, chosen: [] };
  const unitsOf = new Map<number, number>();
  const cost = (s: ContextHistorySummary) => {
    let u = unitsOf.get(s.id);
    if (u === undefined) {
      u = estimateTokenUnits(renderHistorySummary(s));
      unitsOf.set(s.id, u);
    }
    return u;
  };
  let used = headingUnits;
  let chosen: ContextHistorySummary[] = [];
  for (const s of topNewestFirst) {
    if (used + cost(s) > capUnits) continue; // an older, shorter one may still fit
    chosen.push(s);
    used += cost(s);
  }
  if (chosen.length === 0) return { blocks: [], units: 0, chosen: [] };
  for (const s of [...chosen]) {
    const sources = s.sources ?? [];
    if (sources.length === 0) continue;
    const delta = sources.reduce((sum, c) => sum + cost(c), 0) - cost(s);
    if (used + delta > capUnits) continue;
    chosen = chosen.flatMap((c) => (c === s ? [...sources] : [c]));
    used += delta;
  }
  chosen.sort((a, b) => a.earliestAt - b.earliestAt || a.id - b.id);
  return { blocks: [HISTORY_HEADING, ...chosen.map(renderHistorySummary)], units: used, chosen };
}
