import { observationXml, seededRandom, summaryXml } from '../test/support/replies.js';

const WORDS =
  'the login test reads cookie before server sets session token redirect await promise handler cache layer retry backoff queue worker parser schema'.split(' ');
const TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision'];

/** Realistic observer replies: 1–3 observations of 0.5–3 KB (some with a summary), plus prose and empty replies. */
export function realisticCorpus(count: number, seed = 7): string[] {
  const random = seededRandom(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const replies: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const roll = random();
    if (roll < 0.1) {
      replies.push('');
      continue;
    }
    if (roll < 0.2) {
      replies.push(`I looked at the output. ${words(40)}.`);
      continue;
    }
    const blocks: string[] = [];
    const n = 1 + Math.floor(random() * 3);
    for (let j = 0; j < n; j += 1) {
      const targetBytes = 500 + Math.floor(random() * 2500);
      blocks.push(
        observationXml({
          type: TYPES[Math.floor(random() * TYPES.length)]!,
          title: words(8),
          subtitle: words(12),
          narrative: words(Math.max(10, Math.floor((targetBytes - 300) / 6))),
          facts: [words(10), words(12)],
          concepts: ['how-it-works', 'problem-solution'],
          filesRead: ['src/auth/login.ts'],
          filesModified: ['test/login.spec.ts'],
        }),
      );
    }
    if (random() < 0.2) blocks.push(summaryXml({ request: words(8), learned: words(20), completed: words(12), next_steps: words(8) }));
    replies.push(blocks.join('\n'));
  }
  return replies;
}
