import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';
import { DEFAULT_SCRIPT_STRATEGY, indexableText, type ScriptStrategy } from './spaceless-scripts.js';

/**
 * What a stored row contributes to the full-text index (`memory_fts`), one value per column.
 * Pure. FTS5's unicode61 tokenizer already splits paths and snake_case at `/ . - _`; what it
 * cannot split is camelCase, so `terms` carries those parts (`parseCommandArgs` → `parse command
 * args`) and each file's name without its extension, so a question in plain words still finds
 * an identifier or a module. Text in a script written without spaces (Chinese, Japanese, Thai…)
 * goes in as the units spaceless-scripts.ts makes of it, so a word inside a sentence is found.
 */
export interface SearchDocument {
  title: string;
  subtitle: string;
  narrative: string;
  facts: string;
  concepts: string;
  files: string;
  terms: string;
}

/** Words longer than this are not identifiers worth splitting (and are never scanned for parts). */
const MAX_IDENTIFIER_LENGTH = 64;
const ALNUM_WORD = /[A-Za-z0-9]+/g;
/** A lower-case letter then a capital, or two capitals then a lower-case letter: a camelCase joint. */
const CAMEL_JOINT = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;

/** `parseCommandArgs` → ['parse', 'command', 'args']; `HTTPServer` → ['http', 'server']; a plain word → []. */
export function identifierParts(word: string): string[] {
  const parts = word.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [];
  return parts.length > 1 ? parts.map((p) => p.toLowerCase()) : [];
}

/**
 * The camelCase parts of every identifier in the texts, each identifier's parts once. Words are
 * cut out first with a linear scan and only short ones are split: a single pattern for
 * "a camelCase word" backtracks quadratically over a long run of letters (a 300 KB narrative of
 * one word took minutes).
 */
export function expandedTerms(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const text of texts) {
    for (const word of text.match(ALNUM_WORD) ?? []) {
      if (word.length > MAX_IDENTIFIER_LENGTH || seen.has(word) || !CAMEL_JOINT.test(word)) continue;
      seen.add(word);
      const parts = identifierParts(word);
      if (parts.length > 0) out.push(parts.join(' '));
    }
  }
  return out;
}

/** A file's name without directories and extensions: `src/worker/observer-loop.ts` → `observer-loop`. */
function fileStem(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  const dot = base.indexOf('.', 1);
  return dot > 0 ? base.slice(0, dot) : base;
}

export function observationDocument(o: ParsedObservation, strategy: ScriptStrategy = DEFAULT_SCRIPT_STRATEGY): SearchDocument {
  const files = [...new Set([...o.files_modified, ...o.files_read])];
  const texts = [o.title, o.subtitle, o.narrative, ...o.facts, ...o.concepts, ...files];
  return indexable(
    {
      title: o.title,
      subtitle: o.subtitle,
      narrative: o.narrative,
      facts: o.facts.join('\n'),
      concepts: o.concepts.join('\n'),
      files: files.join('\n'),
      terms: [...expandedTerms(texts), ...files.map(fileStem)].join('\n'),
    },
    strategy,
  );
}

/** A session summary: its request is the title; what was learned and done is the narrative. */
export function summaryDocument(s: ParsedSummary, strategy: ScriptStrategy = DEFAULT_SCRIPT_STRATEGY): SearchDocument {
  const narrative = [s.investigated, s.learned, s.completed, s.next_steps, s.notes].filter((t) => t !== '').join('\n');
  return indexable(
    { title: s.request, subtitle: '', narrative, facts: '', concepts: '', files: '', terms: expandedTerms([s.request, narrative]).join('\n') },
    strategy,
  );
}

function indexable(doc: SearchDocument, strategy: ScriptStrategy): SearchDocument {
  const out = { ...doc };
  for (const key of Object.keys(out) as Array<keyof SearchDocument>) out[key] = indexableText(out[key], strategy);
  return out;
}
