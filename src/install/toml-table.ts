/**
 * One table of a TOML file written or removed as text, everything else kept byte for byte (a
 * person's config.toml keeps its comments, order and layout). Pure. The file is parsed before
 * (a malformed file is refused with its line and column) and after: the edit must change that
 * one table and nothing else, or it is refused — e.g. when the table is written inline
 * (`mcp_servers = { memtrace = … }`) or as dotted keys, which a text edit cannot safely replace.
 */
import { parse, TomlError } from 'smol-toml';

export type TomlEdit = { ok: true; text: string; action: 'added' | 'updated' | 'removed' | null } | { ok: false; error: string };

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

function parseToml(text: string): Parsed {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof TomlError)
      return { ok: false, error: `line ${error.line}, column ${error.column}: ${error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')}` };
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A header's key path: `[a."b.c"]` → ['a', 'b.c']; null when it is not a plain table header. */
export function headerPath(line: string): { path: string[]; array: boolean } | null {
  const match = /^\s*(\[\[?)\s*(.+?)\s*(\]\]?)\s*(?:#.*)?$/.exec(line);
  if (!match || match[1]!.length !== match[3]!.length) return null;
  const path: string[] = [];
  const key = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let at = 0;
  const body = match[2]!;
  while (at < body.length) {
    key.lastIndex = at;
    const part = key.exec(body);
    if (!part) return null;
    path.push(part[1] !== undefined ? (JSON.parse(`"${part[1]}"`) as string) : (part[2] ?? part[3])!);
    at = key.lastIndex;
    if (part[4] === '') break;
  }
  return at === body.length ? { path, array: match[1] === '[[' } : null;
}

const startsWith = (path: string[], prefix: readonly string[]) => prefix.every((p, i) => path[i] === p);

/** Line spans [start, end) of the table at `tablePath` with its sub-tables; trailing blank and comment lines stay outside. */
function findTable(lines: string[], tablePath: readonly string[]): { start: number; end: number } | null {
  let inMultiline: '"""' | "'''" | null = null;
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (inMultiline === null) {
      const header = headerPath(line);
      if (header) {
        const ours = !header.array && startsWith(header.path, tablePath);
        if (start === -1 && ours && header.path.length === tablePath.length) start = i;
        else if (start !== -1 && !ours) {
          end = i;
          break;
        }
      }
    }
    // A multi-line string may hold lines that look like headers: track whether one is open.
    for (const quote of ['"""', "'''"] as const) {
      const count = line.split(quote).length - 1;
      if (count % 2 === 1 && (inMultiline === null || inMultiline === quote)) inMultiline = inMultiline === null ? quote : null;
    }
  }
  if (start === -1) return null;
  while (end - 1 > start && /^\s*(?:#.*)?$/.test(lines[end - 1]!)) end -= 1;
  return { start, end };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object).sort();
    const kb = Object.keys(b as object).sort();
    return sameValue(ka, kb) && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return Object.is(a, b);
}

/** The document without the table at `path` (a deep copy of the containers on the way). */
function without(doc: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined || !(head in doc)) return doc;
  const copy = { ...doc };
  if (rest.length === 0) delete copy[head];
  else {
    const inner = copy[head];
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      copy[head] = without(inner as Record<string, unknown>, rest);
      if (Object.keys(copy[head] as object).length === 0) delete copy[head];
    }
  }
  return copy;
}

function valueAt(doc: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = doc;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/** A TOML key: bare when it can be, else a basic string. */
const tomlKey = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));

/** The table as memtrace writes it: scalar and array keys, then one sub-table per object value. */
function renderTable(path: readonly string[], value: Record<string, unknown>): string[] {
  const lines = [`[${path.map(tomlKey).join('.')}]`];
  const tables: Array<[string, Record<string, unknown>]> = [];
  for (const [key, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) tables.push([key, v as Record<string, unknown>]);
    // JSON string, number, boolean and array syntax is valid TOML for these values.
    else lines.push(`${tomlKey(key)} = ${JSON.stringify(v)}`);
  }
  for (const [key, table] of tables) lines.push('', ...renderTable([...path, key], table));
  return lines;
}

/** The edited text, checked by parsing: only the table at `path` may differ, and it must equal `expected`. */
function checked(before: Record<string, unknown>, text: string, path: readonly string[], expected: unknown, action: 'added' | 'updated' | 'removed'): TomlEdit {
  const after = parseToml(text);
  const dotted = path.join('.');
  if (!after.ok || !sameValue(valueAt(after.value, path), expected) || !sameValue(without(after.value, path), without(before, path))) {
    return { ok: false, error: `[${dotted}] is written in a form memtrace install does not edit (inline, or as dotted keys); change it by hand` };
  }
  return { ok: true, text, action };
}

const splitLines = (text: string) => (text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/));

/** Writes the table at `path` (replacing it in place when present, else appending it). */
export function setTomlTable(text: string, path: readonly string[], value: Record<string, unknown>): TomlEdit {
  const before = parseToml(text);
  if (!before.ok) return { ok: false, error: `is not valid TOML: ${before.error}` };
  if (sameValue(valueAt(before.value, path), value)) return { ok: true, text, action: null };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = splitLines(text);
  const block = renderTable(path, value);
  const found = findTable(lines, path);
  if (found) {
    const next = [...lines.slice(0, found.start), ...block, ...lines.slice(found.end)];
    return checked(before.value, next.join(eol) + (found.end < lines.length && !/\n$/.test(text) ? '' : eol), path, value, 'updated');
  }
  const separated = text === '' ? '' : `${text}${/\n$/.test(text) ? '' : eol}${eol}`;
  return checked(before.value, `${separated}${block.join(eol)}${eol}`, path, value, 'added');
}

/** Removes the table at `path` and its sub-tables (and the blank line install put before it at the end of the file). */
export function removeTomlTable(text: string, path: readonly string[]): TomlEdit {
  const before = parseToml(text);
  if (!before.ok) return { ok: false, error: `is not valid TOML: ${before.error}` };
  if (valueAt(before.value, path) === undefined) return { ok: true, text, action: null };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = splitLines(text);
  const found = findTable(lines, path);
  if (!found)
    return { ok: false, error: `[${path.join('.')}] is written in a form memtrace uninstall does not edit (inline, or as dotted keys); remove it by hand` };
  let start = found.start;
  const atEnd = found.end === lines.length;
  if (atEnd && start > 0 && lines[start - 1]!.trim() === '') start -= 1;
  const kept = [...lines.slice(0, start), ...lines.slice(found.end)];
  const finalNewline = atEnd || /\n$/.test(text);
  const next = kept.length === 0 ? '' : kept.join(eol) + (finalNewline ? eol : '');
  return checked(before.value, next, path, undefined, 'removed');
}
