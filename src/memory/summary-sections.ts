import type { StoredSummary } from '../store/index.js';

/** A session summary's sections as a reader sees them, labelled and in order; empty ones left out. */
export function summarySections(s: StoredSummary): Array<[label: string, text: string]> {
  const sections: Array<[string, string]> = [
    ['Request', s.request],
    ['Investigated', s.investigated],
    ['Learned', s.learned],
    ['Completed', s.completed],
    ['Next steps', s.next_steps],
    ['Notes', s.notes],
  ];
  return sections.filter(([, text]) => text !== '');
}
