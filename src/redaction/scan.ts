import { replacementFor, type RedactionCounts } from './kinds.js';
import { RULES, type ScanMemo } from './rules.js';

/**
 * One left-to-right pass: a single regular expression finds every rule's trigger (a few
 * literals each), and only there does that rule's own pattern run. Text with no trigger costs
 * one scan and no allocation. Replacements never overlap; scanning resumes after each one.
 */
const TRIGGERS = new RegExp(RULES.map((r) => `(${r.trigger})`).join('|'), 'g');

function createMemo(text: string): ScanMemo {
  const last = new Map<string, { from: number; at: number }>();
  return {
    nextIndexOf(needle, from) {
      const seen = last.get(needle);
      // Still valid when the last search started at or before `from` and found nothing before it.
      if (seen !== undefined && seen.from <= from && (seen.at === -1 || seen.at >= from)) return seen.at;
      const at = text.indexOf(needle, from);
      last.set(needle, { from, at });
      return at;
    },
  };
}

/**
 * The text with every recognised secret replaced by `[REDACTED:<kind>]` (and `<private>` spans by
 * `[PRIVATE]`); adds what it replaced to `counts`. Returns the same string when nothing matched.
 */
export function redactTextInto(text: string, counts: RedactionCounts): string {
  TRIGGERS.lastIndex = 0;
  let hit = TRIGGERS.exec(text);
  if (hit === null) return text;
  let memo: ScanMemo | null = null;
  let out = '';
  let copied = 0;
  while (hit !== null) {
    const at = hit.index;
    let group = 1;
    while (hit[group] === undefined) group += 1;
    const rule = RULES[group - 1]!;
    memo ??= createMemo(text);
    const span = rule.match(text, at, memo);
    if (span === null) {
      TRIGGERS.lastIndex = at + 1;
    } else {
      out += text.slice(copied, span.start) + replacementFor(rule.kind);
      copied = span.end;
      counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      TRIGGERS.lastIndex = Math.max(span.end, at + 1);
    }
    hit = TRIGGERS.exec(text);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

export function redactText(text: string): { text: string; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  return { text: redactTextInto(text, counts), counts };
}
