import { XMLParser } from 'fast-xml-parser';
import { escapeForeignMarkup } from './markup.js';

/** A block's fields as plain strings and string lists; null when the block is not readable XML. */
export type BlockFields = Record<string, { text: string; items: string[] }>;

const LIST_ITEM_TAGS = new Set(['fact', 'concept', 'file', 'event']);

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 64,
  isArray: (name) => LIST_ITEM_TAGS.has(name),
});

/** Reads the field tags of one block's inner text. Never throws. */
export function readBlockFields(inner: string): BlockFields | null {
  let parsed: unknown;
  try {
    parsed = parser.parse(`<block>${escapeForeignMarkup(inner)}</block>`);
  } catch {
    return null;
  }
  const root = (parsed as { block?: unknown } | null)?.block;
  const fields: BlockFields = Object.create(null);
  if (root === undefined || root === null || typeof root !== 'object') return fields;
  for (const [name, node] of Object.entries(root as Record<string, unknown>)) {
    if (name === '#text') continue;
    fields[name] = { text: textOf(node), items: itemsOf(node) };
  }
  return fields;
}

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textOf).find((t) => t.trim() !== '') ?? '';
  if (node !== null && typeof node === 'object') {
    const text = (node as Record<string, unknown>)['#text'];
    return typeof text === 'string' ? text : '';
  }
  return '';
}

/** `<facts><fact>a</fact>…</facts>`, or a plain list of lines (`- a`) when the model skipped the item tags. */
function itemsOf(node: unknown): string[] {
  const containers = Array.isArray(node) ? node : [node];
  const items: string[] = [];
  for (const container of containers) {
    if (typeof container === 'string') {
      for (const line of container.split('\n')) items.push(line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, ''));
      continue;
    }
    if (container === null || typeof container !== 'object') continue;
    for (const [name, child] of Object.entries(container as Record<string, unknown>)) {
      if (!LIST_ITEM_TAGS.has(name)) continue;
      for (const item of Array.isArray(child) ? child : [child]) items.push(textOf(item));
    }
  }
  return items;
}
