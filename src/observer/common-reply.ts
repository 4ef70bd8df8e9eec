import type { BlockFields } from './block-read.js';

/**
 * The fast path for the common observer reply: `<observation>` / `<summary>` blocks written
 * plainly — lower-case tags without attributes (but the prompt's own `<observation type="word">`),
 * no entity, CDATA, comment or declaration, no `<` in text — around prose with no `<`, `&` or `\r`. It reads such a reply with `indexOf` and slices, and
 * gives up (null) at the first thing outside that shape, leaving the reply to the full path
 * (block-scan, markup, fast-xml-parser). What it returns is what the full path would read, field
 * for field: the differential fuzz test holds the two paths to identical decisions.
 */
export interface CommonBlock {
  name: 'observation' | 'summary';
  /** The `type="…"` of `<observation type="…">`, the one attribute the prompt asks for. */
  type: string | undefined;
  fields: BlockFields;
}

export interface CommonScan {
  blocks: CommonBlock[];
  truncated: number;
}

/** Fields the decision reads; any other tag at a block's top level sends the reply to the full path. */
const TEXT_FIELDS = new Set(['type', 'title', 'subtitle', 'narrative', 'request', 'investigated', 'learned', 'completed', 'next_steps', 'notes']);
const LIST_FIELDS = new Set(['facts', 'concepts', 'files_read', 'files_modified', 'sources']);
const ITEM_TAGS = new Set(['fact', 'concept', 'file', 'event']);
const OPEN_OBSERVATION = '<observation>';
const OPEN_TYPED_OBSERVATION = '<observation type="';
const OPEN_SUMMARY = '<summary>';
const TYPE_VALUE = /^[A-Za-z_-]{0,40}$/;
const NO_ITEMS: string[] = [];
const GT = 62;
const SLASH = 47;

/** A plain list written as lines, as the full path reads it: one item per line, bullets dropped. */
function linesOf(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, ''));
}

/** `<name>` at `at` when it is exactly that (lower-case known name, nothing else inside); else null. */
function openTagAt(s: string, at: number, names: ReadonlySet<string>): { name: string; end: number } | null {
  const gt = s.indexOf('>', at + 1);
  if (gt === -1) return null;
  const name = s.slice(at + 1, gt);
  return names.has(name) ? { name, end: gt + 1 } : null;
}

/** The content of `<name>…</name>` starting at `from` when it holds no `<`; else null. */
function plainContent(s: string, from: number, name: string): { text: string; end: number } | null {
  const lt = s.indexOf('<', from);
  if (lt === -1 || s.charCodeAt(lt + 1) !== SLASH || !s.startsWith(name, lt + 2) || s.charCodeAt(lt + 2 + name.length) !== GT) return null;
  return { text: s.slice(from, lt), end: lt + name.length + 3 };
}

/** A list container's items: either only `<fact>`-like elements, or lines of plain text. */
function listContent(s: string, from: number, name: string): { text: string; items: string[]; end: number } | null {
  const plain = plainContent(s, from, name);
  if (plain) return { text: plain.text.trim(), items: linesOf(plain.text.trim()), end: plain.end };
  // Item elements: grouped by tag name in order of first appearance, as the XML object keeps them.
  const byTag = new Map<string, string[]>();
  let at = from;
  for (;;) {
    const lt = s.indexOf('<', at);
    if (lt === -1 || s.slice(at, lt).trim() !== '') return null;
    if (s.charCodeAt(lt + 1) === SLASH) {
      if (!s.startsWith(name, lt + 2) || s.charCodeAt(lt + 2 + name.length) !== GT) return null;
      const items: string[] = [];
      for (const values of byTag.values()) items.push(...values);
      return { text: '', items, end: lt + name.length + 3 };
    }
    const open = openTagAt(s, lt, ITEM_TAGS);
    if (!open) return null;
    const item = plainContent(s, open.end, open.name);
    if (!item) return null;
    const values = byTag.get(open.name) ?? [];
    values.push(item.text.trim());
    byTag.set(open.name, values);
    at = item.end;
  }
}

/** A block's fields from its inner text, or null when the inner text is not of the common shape. */
function readInner(inner: string): BlockFields | null {
  const fields: BlockFields = Object.create(null);
  let at = 0;
  for (;;) {
    const lt = inner.indexOf('<', at);
    if (lt === -1) return fields; // text between fields is not read, as in the full path
    const open = openTagAt(inner, lt, TEXT_FIELDS) ?? openTagAt(inner, lt, LIST_FIELDS);
    if (!open || fields[open.name] !== undefined) return null;
    if (LIST_FIELDS.has(open.name)) {
      const list = listContent(inner, open.end, open.name);
      if (!list) return null;
      fields[open.name] = { text: list.text, items: list.items };
      at = list.end;
    } else {
      const plain = plainContent(inner, open.end, open.name);
      if (!plain) return null;
      // A text field's items are never read (the full path splits them into lines; nothing uses them).
      fields[open.name] = { text: plain.text.trim(), items: NO_ITEMS };
      at = plain.end;
    }
  }
}

/** Every `<` from `from` on opens or closes a known field tag, exactly written. */
function onlyFieldTags(s: string, from: number): boolean {
  for (let lt = s.indexOf('<', from); lt !== -1; lt = s.indexOf('<', lt + 1)) {
    const gt = s.indexOf('>', lt);
    if (gt === -1) return false;
    const slash = s.charCodeAt(lt + 1) === SLASH ? 1 : 0;
    const name = s.slice(lt + 1 + slash, gt);
    if (!TEXT_FIELDS.has(name) && !LIST_FIELDS.has(name) && !ITEM_TAGS.has(name)) return false;
  }
  return true;
}

/**
 * Scans a reply (its whole-reply fence already stripped) for plain blocks, or returns null when
 * any part of it needs the full path.
 */
export function scanCommonReply(text: string): CommonScan | null {
  // `&` starts an entity; XML turns `\r\n` into `\n`: both are the full path's to read.
  if (text.indexOf('&') !== -1 || text.indexOf('\r') !== -1) return null;
  const blocks: CommonBlock[] = [];
  let at = 0;
  for (;;) {
    const lt = text.indexOf('<', at);
    if (lt === -1) return { blocks, truncated: 0 };
    let name: CommonBlock['name'];
    let type: string | undefined;
    let innerStart: number;
    if (text.startsWith(OPEN_OBSERVATION, lt)) {
      name = 'observation';
      innerStart = lt + OPEN_OBSERVATION.length;
    } else if (text.startsWith(OPEN_SUMMARY, lt)) {
      name = 'summary';
      innerStart = lt + OPEN_SUMMARY.length;
    } else if (text.startsWith(OPEN_TYPED_OBSERVATION, lt)) {
      const valueStart = lt + OPEN_TYPED_OBSERVATION.length;
      const quote = text.indexOf('"', valueStart);
      if (quote === -1 || text.charCodeAt(quote + 1) !== GT) return null;
      type = text.slice(valueStart, quote);
      if (!TYPE_VALUE.test(type)) return null;
      name = 'observation';
      innerStart = quote + 2;
    } else return null;
    const close = `</${name}>`;
    const end = text.indexOf(close, innerStart);
    if (end === -1) {
      // Cut before its close: counted and the scan stops — sure only when nothing after the open
      // could be a close the full path would accept (`</OBSERVATION >` and the like).
      return onlyFieldTags(text, innerStart) ? { blocks, truncated: 1 } : null;
    }
    const fields = readInner(text.slice(innerStart, end));
    if (fields === null) return null;
    blocks.push({ name, type, fields });
    at = end + close.length;
  }
}
