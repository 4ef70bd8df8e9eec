import { rules } from '@secretlint/secretlint-rule-preset-recommend';

/**
 * secretlint's recommended rule set (a maintained scanner's rules) run directly over a text, as
 * an oracle: whatever it flags in a sample must be gone from what memtrace stores. Rules are
 * driven through the part of secretlint's rule context they use; messages are ignored (they
 * quote the secret).
 */
export interface OracleFinding {
  ruleId: string;
  text: string;
}

interface RuleLike {
  meta: { id: string };
  create(context: unknown, options: unknown): { file?: (source: unknown) => unknown } | undefined;
}

export function secretlintFindings(content: string): OracleFinding[] {
  const found: OracleFinding[] = [];
  for (const rule of rules as unknown as RuleLike[]) {
    if (rule.meta.id.endsWith('filter-comments')) continue;
    const context = {
      report: (d: { range: [number, number] }) => found.push({ ruleId: rule.meta.id, text: content.slice(d.range[0], d.range[1]) }),
      ignore: () => undefined,
      createTranslator: () => (id: string) => id,
      registerRule: () => undefined,
      sharedOptions: {},
    };
    const handlers = rule.create(context, {});
    handlers?.file?.({ content, filePath: '/tmp/payload.txt', ext: '.txt', contentType: 'text' });
  }
  return found;
}
