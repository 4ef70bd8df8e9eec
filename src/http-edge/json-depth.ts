/**
 * How deeply a JSON text nests, found by one scan before JSON.parse: a 10 KB body nested
 * 5,000 levels parses, but every later walk over it (stringify, validation) recurses that deep.
 * Pure; returns the top-level key under which the limit was crossed, so the 400 can name it.
 */
export function findExcessiveNesting(text: string, maxDepth: number): { field: string | null } | null {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastTopLevelString: string | null = null;
  let topLevelKey: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === 92 /* \ */) escaped = true;
      else if (ch === 34 /* " */) {
        inString = false;
        if (depth === 1) lastTopLevelString = text.slice(stringStart + 1, i);
      }
      continue;
    }
    if (ch === 34) {
      inString = true;
      stringStart = i;
    } else if (ch === 58 /* : */ && depth === 1) {
      topLevelKey = lastTopLevelString;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      depth += 1;
      if (depth > maxDepth) return { field: depth > 1 ? topLevelKey : null };
    } else if (ch === 125 /* } */ || ch === 93 /* ] */) {
      depth -= 1;
    }
  }
  return null;
}
