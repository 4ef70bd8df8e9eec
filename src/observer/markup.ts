/**
 * Makes a block's inner text safe for the XML parser: only the field tags we read stay markup;
 * any other `<` (code like `Array<string>`, `a < b`, `<__proto__>`, DOCTYPE and entity
 * declarations, deep tag soup) becomes text, and a bare `&` becomes `&amp;`. So code in a
 * narrative parses, prototype-named tags never reach an object key, and entity bombs cannot
 * be declared. One forward pass: linear in the input whatever it holds.
 */
const FIELD_TAGS = [
  'type',
  'title',
  'subtitle',
  'narrative',
  'facts',
  'fact',
  'concepts',
  'concept',
  'files_read',
  'files_modified',
  'file',
  'request',
  'investigated',
  'learned',
  'completed',
  'next_steps',
  'notes',
  'reason',
] as const;

const FIELD_TAG_SET: ReadonlySet<string> = new Set(FIELD_TAGS);
const FIELD_TAG = /<(\/?)([A-Za-z_][\w.:-]*)(?:\s[^<>]*?)?(\/?)>/y;
const ENTITY = /&(?:[A-Za-z][A-Za-z0-9]{0,31}|#\d{1,7}|#x[0-9A-Fa-f]{1,6});/y;
const CDATA_OPEN = '<![CDATA[';

export function escapeForeignMarkup(inner: string): string {
  const out: string[] = [];
  let plainStart = 0;
  // Past the last `]]>` no CDATA section can close, so openers there are plain text.
  const lastCdataEnd = inner.lastIndexOf(']]>');
  let i = 0;
  while (i < inner.length) {
    const ch = inner.charCodeAt(i);
    if (ch !== 60 /* < */ && ch !== 38 /* & */) {
      i += 1;
      continue;
    }
    out.push(inner.slice(plainStart, i));
    if (ch === 38) {
      ENTITY.lastIndex = i;
      const entity = ENTITY.exec(inner);
      if (entity) {
        out.push(entity[0]);
        i += entity[0].length;
      } else {
        out.push('&amp;');
        i += 1;
      }
    } else if (inner.startsWith(CDATA_OPEN, i) && lastCdataEnd > i) {
      const end = inner.indexOf(']]>', i + CDATA_OPEN.length);
      out.push(inner.slice(i, end + 3));
      i = end + 3;
    } else {
      FIELD_TAG.lastIndex = i;
      const tag = FIELD_TAG.exec(inner);
      const name = tag?.[2]?.toLowerCase();
      if (tag && name !== undefined && FIELD_TAG_SET.has(name)) {
        out.push(`<${tag[1] ?? ''}${name}${tag[3] ?? ''}>`);
        i += tag[0].length;
      } else {
        out.push('&lt;');
        i += 1;
      }
    }
    plainStart = i;
  }
  out.push(inner.slice(plainStart));
  return out.join('');
}
