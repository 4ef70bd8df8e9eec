/**
 * Counts the characters a synchronous call makes the string and regex built-ins examine or copy:
 * what a search scanned up to its match (or to the end), what a copy copied, what a regex engine
 * passed over before its match. A quadratic scan shows up as work ~ n², whatever the machine's
 * load, so bounded-input tests assert on this count instead of on a time.
 *
 * Regex backtracking inside one attempt is not seen (nor how far a failed sticky attempt read);
 * the code under test uses non-backtracking patterns (src/observer/block-scan.ts).
 */
type Method = (this: unknown, ...args: unknown[]) => unknown;

export function countWork<T>(fn: () => T): { value: T; work: number } {
  let work = 0;
  const restore: Array<() => void> = [];
  const wrap = <O extends object>(proto: O, name: string, cost: (self: unknown, args: unknown[], result: unknown) => number) => {
    const original = (proto as Record<string, Method>)[name]!;
    (proto as Record<string, Method>)[name] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      work += Math.max(1, cost(this, args, result));
      return result;
    };
    restore.push(() => {
      (proto as Record<string, Method>)[name] = original;
    });
  };
  const len = (s: unknown) => String(s).length;
  const needle = (args: unknown[]) => len(args[0]);
  const from = (args: unknown[]) => Math.max(0, Number(args[1] ?? 0) || 0);

  wrap(String.prototype, 'indexOf', (s, a, r) => ((r as number) < 0 ? len(s) - from(a) : (r as number) - from(a) + needle(a)));
  wrap(String.prototype, 'includes', (s, a, r) => (r ? needle(a) : len(s) - from(a)));
  wrap(String.prototype, 'lastIndexOf', (s, _a, r) => ((r as number) < 0 ? len(s) : len(s) - (r as number)));
  wrap(String.prototype, 'startsWith', (_s, a) => needle(a));
  wrap(String.prototype, 'endsWith', (_s, a) => needle(a));
  for (const copy of [
    'slice',
    'substring',
    'substr',
    'trim',
    'trimStart',
    'trimEnd',
    'toLowerCase',
    'toUpperCase',
    'padStart',
    'padEnd',
    'repeat',
    'normalize',
  ]) {
    wrap(String.prototype, copy, (_s, _a, r) => len(r));
  }
  for (const whole of ['split', 'replace', 'replaceAll', 'match', 'matchAll', 'search', 'localeCompare']) wrap(String.prototype, whole, (s) => len(s));
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    // A sticky pattern is tried at lastIndex only: its work is what it matched. Any other scans
    // from lastIndex (global) or 0 up to its match, or to the end when there is none.
    const start = this.global || this.sticky ? this.lastIndex : 0;
    const match = exec.call(this, input);
    if (this.sticky) work += Math.max(1, match ? match[0].length : 1);
    else work += Math.max(1, (match ? match.index + match[0].length : String(input).length) - start);
    return match;
  };
  restore.push(() => {
    RegExp.prototype.exec = exec;
  });
  wrap(Array.prototype, 'join', (_s, _a, r) => len(r));
  try {
    return { value: fn(), work };
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}

/**
 * How the work grows when the input doubles: about 2 for a linear algorithm, about 4 for a
 * quadratic one. `make(n)` builds an input of size parameter n.
 */
export function growthOnDoubling<I>(make: (n: number) => I, run: (input: I) => unknown, n: number): { ratio: number; small: number; large: number } {
  const [a, b] = [make(n), make(2 * n)];
  const small = countWork(() => run(a)).work;
  const large = countWork(() => run(b)).work;
  return { ratio: large / small, small, large };
}
