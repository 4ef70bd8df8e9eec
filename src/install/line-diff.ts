/**
 * A unified diff of two texts, line by line, for `--dry-run`. Settings files are small and a
 * change touches one region, so the common head and tail are cut first and the rest is a plain
 * longest-common-subsequence table. Pure.
 */
type Op = { kind: ' ' | '-' | '+'; line: string };

export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before), splitLines(after));
  const hunks: string[] = [];
  let index = 0;
  while (index < ops.length) {
    const firstChange = ops.findIndex((op, at) => at >= index && op.kind !== ' ');
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - context);
    // A hunk runs until `2 * context` unchanged lines in a row (or the end).
    let end = firstChange;
    let unchanged = 0;
    for (let at = firstChange; at < ops.length; at++) {
      if (ops[at]!.kind === ' ') {
        unchanged++;
        if (unchanged > 2 * context) break;
      } else {
        unchanged = 0;
        end = at;
      }
    }
    const stop = Math.min(ops.length, end + context + 1);
    hunks.push(renderHunk(ops, start, stop));
    index = stop;
  }
  return `${[`--- ${labels.from}`, `+++ ${labels.to}`, ...hunks].join('\n')}\n`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function renderHunk(ops: Op[], start: number, stop: number): string {
  let oldStart = 1;
  let newStart = 1;
  for (let at = 0; at < start; at++) {
    if (ops[at]!.kind !== '+') oldStart++;
    if (ops[at]!.kind !== '-') newStart++;
  }
  const slice = ops.slice(start, stop);
  const oldCount = slice.filter((op) => op.kind !== '+').length;
  const newCount = slice.filter((op) => op.kind !== '-').length;
  const range = (first: number, count: number) => `${count === 0 ? first - 1 : first},${count}`;
  return [`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`, ...slice.map((op) => `${op.kind}${op.line}`)].join('\n');
}

function diffLines(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const keep = (lines: string[]): Op[] => lines.map((line) => ({ kind: ' ', line }));
  return [...keep(a.slice(0, head)), ...lcsOps(midA, midB), ...keep(a.slice(a.length - tail))];
}

function lcsOps(a: string[], b: string[]): Op[] {
  const width = b.length + 1;
  // table[i * width + j] = length of the LCS of a[i..] and b[j..]
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      ops.push({ kind: '-', line: a[i++]! });
    } else {
      ops.push({ kind: '+', line: b[j++]! });
    }
  }
  while (i < a.length) ops.push({ kind: '-', line: a[i++]! });
  while (j < b.length) ops.push({ kind: '+', line: b[j++]! });
  return ops;
}
