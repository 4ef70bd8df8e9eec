/**
 * JSON text as a person keeps it: parse with an error that says where (line and column, which
 * V8's messages do not always give), and render back in the file's own layout (indent, line
 * ending, final newline, BOM) so that an install followed by an uninstall gives the same bytes.
 * Pure.
 */
export interface JsonFormat {
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  bom: boolean;
}

/** For a file memtrace creates: 2-space JSON with a trailing newline. */
export const DEFAULT_JSON_FORMAT: JsonFormat = { indent: '  ', eol: '\n', finalNewline: true, bom: false };

export type ParsedJson = { ok: true; value: unknown; format: JsonFormat } | { ok: false; line: number; column: number; reason: string };

export function parseJsonText(text: string): ParsedJson {
  const bom = text.startsWith('\uFEFF');
  const body = bom ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body), format: detectFormat(body, bom) };
  } catch (error) {
    const located = locateJsonError(body) ?? { offset: 0, reason: error instanceof Error ? error.message : String(error) };
    return { ok: false, ...lineAndColumn(body, located.offset), reason: located.reason };
  }
}

/** The layout of an existing file; a file with no indented line (`{}`) gets 2 spaces. */
export function detectFormat(text: string, bom = false): JsonFormat {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? DEFAULT_JSON_FORMAT.indent;
  return { indent, eol: text.includes('\r\n') ? '\r\n' : '\n', finalNewline: /\n$/.test(text), bom };
}

export function renderJson(value: unknown, format: JsonFormat): string {
  let text = JSON.stringify(value, null, format.indent);
  if (format.finalNewline) text += '\n';
  if (format.eol === '\r\n') text = text.replace(/\n/g, '\r\n');
  return format.bom ? `\uFEFF${text}` : text;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}

class Located extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The first syntax error of strict JSON (RFC 8259), or null when the text is valid. */
export function locateJsonError(text: string): { offset: number; reason: string } | null {
  let i = 0;
  const fail = (reason: string): never => {
    throw new Located(i, reason);
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const describe = (ch: string | undefined) => (ch === undefined ? 'the end of the file' : `'${ch}'`);
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${describe(text[i])}`);
  };
  const string = () => {
    i++;
    for (;;) {
      const ch = text[i];
      if (ch === undefined) return fail('unterminated string');
      if (ch === '"') return void i++;
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail('invalid escape in a string');
        continue;
      }
      if (ch.charCodeAt(0) < 0x20) fail('a raw control character (a line break?) inside a string');
      i++;
    }
  };
  const value = (): void => {
    skipSpace();
    const ch = text[i];
    if (ch === '{') object();
    else if (ch === '[') array();
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '/') fail('comments are not allowed in JSON');
    else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail('invalid number');
      i = NUMBER.lastIndex;
    } else fail(ch === undefined ? 'unexpected end of the file' : `unexpected ${describe(ch)}`);
  };
  const object = () => {
    i++;
    skipSpace();
    if (text[i] === '}') return void i++;
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail(text[i] === '}' ? "a trailing comma before '}'" : `expected a double-quoted property name, found ${describe(text[i])}`);
      string();
      skipSpace();
      if (text[i] !== ':') fail(`expected ':' after a property name, found ${describe(text[i])}`);
      i++;
      value();
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === '}') return void i++;
      else fail(`expected ',' or '}' after a property value, found ${describe(text[i])}`);
    }
  };
  const array = () => {
    i++;
    skipSpace();
    if (text[i] === ']') return void i++;
    for (;;) {
      skipSpace();
      if (text[i] === ']') fail("a trailing comma before ']'");
      value();
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === ']') return void i++;
      else fail(`expected ',' or ']' after an array element, found ${describe(text[i])}`);
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail(`unexpected ${describe(text[i])} after the JSON value`);
    return null;
  } catch (error) {
    if (error instanceof Located) return { offset: error.offset, reason: error.reason };
    if (error instanceof RangeError) return { offset: 0, reason: 'nested too deeply' };
    throw error;
  }
}
