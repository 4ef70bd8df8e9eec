/**
 * Finds the top-level observer blocks in a reply with one linear pass of non-backtracking
 * regexes, so a 1 MB reply or tag soup costs O(n). Everything between blocks is ignored.
 */
export type BlockName = 'observation' | 'summary' | 'skip_summary';

export interface RawBlock {
  name: BlockName;
  attributes: Record<string, string>;
  /** Text between the open and close tags; '' for a self-closing tag. */
  inner: string;
}

export interface BlockScan {
  blocks: RawBlock[];
  /** An opened block with no close before the end of the reply. */
  truncated: number;
}

const OPEN = /<(observation|summary|skip_summary)(?=[\s/>])([^<>]*?)(\/?)>/giy;
const NEXT_OPEN = /<(?:observation|summary|skip_summary)(?=[\s/>])/gi;
const CLOSE: Record<BlockName, RegExp> = {
  observation: /<\/observation\s*>/gi,
  summary: /<\/summary\s*>/gi,
  skip_summary: /<\/skip_summary\s*>/gi,
};
const ATTRIBUTE = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`/]+))/g;

export function scanBlocks(text: string): BlockScan {
  const blocks: RawBlock[] = [];
  let truncated = 0;
  let cursor = 0;
  NEXT_OPEN.lastIndex = 0;
  for (;;) {
    NEXT_OPEN.lastIndex = cursor;
    const found = NEXT_OPEN.exec(text);
    if (!found) break;
    OPEN.lastIndex = found.index;
    const open = OPEN.exec(text);
    if (!open) {
      // `<observation` with no `>` after it: the reply was cut inside the tag.
      if (text.indexOf('>', found.index) === -1) {
        truncated += 1;
        break;
      }
      cursor = found.index + 1;
      continue;
    }
    const name = open[1]!.toLowerCase() as BlockName;
    const attributes = readAttributes(open[2] ?? '');
    const afterOpen = open.index + open[0].length;
    if (open[3] === '/') {
      blocks.push({ name, attributes, inner: '' });
      cursor = afterOpen;
      continue;
    }
    const close = CLOSE[name];
    close.lastIndex = afterOpen;
    const end = close.exec(text);
    if (!end) {
      if (name === 'skip_summary') {
        // `<skip_summary reason="…">` with no close is still an unambiguous skip.
        blocks.push({ name, attributes, inner: '' });
        cursor = afterOpen;
        continue;
      }
      truncated += 1;
      break;
    }
    blocks.push({ name, attributes, inner: text.slice(afterOpen, end.index) });
    cursor = end.index + end[0].length;
  }
  return { blocks, truncated };
}

function readAttributes(source: string): Record<string, string> {
  const attributes: Record<string, string> = Object.create(null);
  for (const match of source.matchAll(ATTRIBUTE)) {
    attributes[match[1]!.toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return attributes;
}
