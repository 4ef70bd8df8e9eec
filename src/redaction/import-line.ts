import type { RedactionCounts } from './kinds.js';
import { redactValueInto } from './redact-value.js';
import { redactTextInto } from './scan.js';

/**
 * For `memtrace import`: one jsonl line, redacted before it is parsed into rows. A line that
 * parses is redacted value by value (so the JSON stays valid and keys stay keys); one that does
 * not is redacted as text, so even an invalid line that is logged or echoed back holds no secret.
 */
export function redactImportLine(line: string): { line: string; value: unknown; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { line: redactTextInto(line, counts), value: undefined, counts };
  }
  const value = redactValueInto(parsed, counts);
  return { line: value === parsed ? line : JSON.stringify(value), value, counts };
}
