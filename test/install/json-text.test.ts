import { describe, expect, it } from 'vitest';
import { detectFormat, locateJsonError, parseJsonText, renderJson } from '../../src/install/json-text.js';

describe('parseJsonText', () => {
  it.each([
    ['{\n  "a": 1,\n}\n', 3, 1, "a trailing comma before '}'"],
    ['{\n  "model": "opus"\n  "env": {}\n}', 3, 3, "expected ',' or '}' after a property value, found '\"'"],
    ['{\n  // why\n  "a": 1\n}', 2, 3, 'expected a double-quoted property name'],
    ['{"a": [1, 2,]}', 1, 13, "a trailing comma before ']'"],
    ['{"a": "x\ny"}', 1, 9, 'a raw control character'],
    ['{"a": tru}', 1, 7, "unexpected 't'"],
    ['{"a": 1', 1, 8, 'the end of the file'],
    ['', 1, 1, 'unexpected end of the file'],
    ['{} {}', 1, 4, 'after the JSON value'],
    ["{'a': 1}", 1, 2, 'expected a double-quoted property name'],
  ])('locates the error in %j at line %i, column %i', (text, line, column, reason) => {
    const parsed = parseJsonText(text);
    expect(parsed).toMatchObject({ ok: false, line, column });
    expect(parsed.ok === false && parsed.reason).toContain(reason);
  });

  it('finds no error in valid JSON, including escapes, numbers and deep nesting', () => {
    for (const text of ['{"a":"\\u00e9\\n\\"","b":[-1.5e3,0,true,false,null],"c":{"d":{}}}', '[]', ' 3 ', JSON.stringify({ a: [[[[{ b: 'c' }]]]] })]) {
      expect(locateJsonError(text)).toBeNull();
    }
  });

  it('reports a nesting too deep for the scanner instead of crashing', () => {
    const deep = '['.repeat(200_000);
    expect(parseJsonText(deep)).toMatchObject({ ok: false });
  });
});

describe("renderJson in the file's own layout", () => {
  it.each([
    ['2 spaces, final newline', '{\n  "a": [\n    1\n  ]\n}\n'],
    ['4 spaces, no final newline', '{\n    "a": {\n        "b": true\n    }\n}'],
    ['tabs and CRLF', '{\r\n\t"a": "b"\r\n}\r\n'],
    ['a byte-order mark', '\uFEFF{\n  "a": 1\n}\n'],
    ['an empty object', '{}'],
  ])('gives back the same bytes for %s', (_name, text) => {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(renderJson(parsed.value, parsed.format)).toBe(text);
  });

  it('indents a file with no indented line (e.g. {}) with 2 spaces when it grows', () => {
    expect(detectFormat('{}\n')).toEqual({ indent: '  ', eol: '\n', finalNewline: true, bom: false });
    expect(renderJson({ a: 1 }, detectFormat('{}'))).toBe('{\n  "a": 1\n}');
  });
});
