/**
 * A baseline of the reference product's shape: plain regexes that pull `<observation>` and
 * `<summary>` blocks and their child tags out of a reply. No entities, no CDATA, no attributes,
 * no truncation or ghost rules: it reads only well-formed common replies, and reads them fast.
 * Written for the benchmark only, to measure our parser against; nothing else uses it.
 */
const BLOCK = /<(observation|summary)\b[^>]*>([\s\S]*?)<\/\1>/g;
const CHILD = /<([a-z_]+)>([\s\S]*?)<\/\1>/g;
const ITEM = /<(?:fact|concept|file)>([\s\S]*?)<\/(?:fact|concept|file)>/g;
const LISTS = new Set(['facts', 'concepts', 'files_read', 'files_modified']);

export interface RegexBlock {
  kind: string;
  fields: Record<string, string | string[]>;
}

export function regexParse(reply: string): RegexBlock[] {
  const out: RegexBlock[] = [];
  for (const block of reply.matchAll(BLOCK)) {
    const fields: Record<string, string | string[]> = {};
    for (const child of block[2]!.matchAll(CHILD)) {
      const name = child[1]!;
      fields[name] = LISTS.has(name) ? [...child[2]!.matchAll(ITEM)].map((m) => m[1]!.trim()) : child[2]!.trim();
    }
    out.push({ kind: block[1]!, fields });
  }
  return out;
}
