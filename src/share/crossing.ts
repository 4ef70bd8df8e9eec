import path from 'node:path';
import { redactTextInto, type RedactionCounts } from '../redaction/index.js';
import type { ObservationType, ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';

/**
 * What of a stored record may cross to the shared database (docs/sharing.md#what-crosses), as a
 * pure function: the stored text, type and files, redacted once more (a rule added since the
 * record was stored still applies), with every absolute path made relative to the repository's
 * root when it lies inside it and replaced by `[path]` when it does not — in the file lists and
 * inside the text alike. Nothing else of the row (its session, checkout, provenance, claims,
 * model) is read.
 */
export type WireBody = ({ kind: 'observation' } & ParsedObservation) | ({ kind: 'summary' } & ParsedSummary);

/** What stands for a path outside the repository. */
export const OUTSIDE_PATH = '[path]';

// An absolute POSIX path (not part of a URL or a relative path), a `~/` path, a Windows drive path, or a file:// URL.
const PATH_IN_TEXT = /file:\/\/(\/[^\s'"`<>|;,(){}[\]]*)|(?<![\w.~/:@%$\\-])(~?\/[^\s'"`<>|;,(){}[\]]+)|(?<![\w])([A-Za-z]:\\[^\s'"`<>|;,(){}[\]]+)/g;
const TRAILING = /[.:!?]+$/;

/** A path made relative to the first root it lies in, or null when it lies in none. */
function inside(p: string, roots: readonly string[]): string | null {
  if (!p.startsWith('/')) return null;
  const normal = path.posix.normalize(p).replace(/\/+$/, '') || '/';
  for (const root of roots) {
    if (normal === root) return '.';
    if (normal.startsWith(`${root}/`)) return normal.slice(root.length + 1);
  }
  return null;
}

/** Roots longest first, so a worktree inside the main checkout wins over it. */
export function crossingRoots(...roots: Array<string | null | undefined>): string[] {
  const clean = roots.filter((r): r is string => typeof r === 'string' && r.startsWith('/')).map((r) => path.posix.normalize(r).replace(/\/+$/, '') || '/');
  return [...new Set(clean)].filter((r) => r !== '/').sort((a, b) => b.length - a.length);
}

/** Every path inside the text: relative when inside a root, `[path]` otherwise. */
export function relativizeText(text: string, roots: readonly string[]): string {
  return text.replace(PATH_IN_TEXT, (_match, fileUrl: string | undefined, posix: string | undefined) => {
    const raw = fileUrl ?? posix ?? null;
    if (raw === null) return OUTSIDE_PATH; // a Windows path: never this repository's
    const trail = TRAILING.exec(raw)?.[0] ?? '';
    const bare = raw.slice(0, raw.length - trail.length);
    if (bare.startsWith('~')) return `${OUTSIDE_PATH}${trail}`;
    const relative = inside(bare, roots);
    return relative === null ? `${OUTSIDE_PATH}${trail}` : `${relative}${trail}`;
  });
}

/** A file list: paths inside the repository relative, the others left out (they do not travel). */
export function relativizeFiles(files: readonly string[], roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const f = file.trim();
    if (f === '') continue;
    if (f.startsWith('/')) {
      const relative = inside(f, roots);
      if (relative !== null) out.push(relative);
    } else {
      const relative = relativizeText(f, roots);
      if (!relative.includes(OUTSIDE_PATH)) out.push(relative);
    }
  }
  return [...new Set(out)];
}

/** One text field as it crosses: redacted, its paths made relative, and without NUL (which Postgres text cannot hold). */
function crossText(text: string, roots: readonly string[], counts: RedactionCounts): string {
  return relativizeText(redactTextInto(text, counts), roots).replaceAll('\u0000', '');
}

export function crossingObservation(o: ParsedObservation & { type: ObservationType }, roots: readonly string[], counts: RedactionCounts): WireBody {
  const t = (s: string) => crossText(s, roots, counts);
  return {
    kind: 'observation',
    type: o.type,
    title: t(o.title),
    subtitle: t(o.subtitle),
    narrative: t(o.narrative),
    facts: o.facts.map(t),
    concepts: o.concepts.map(t),
    files_read: relativizeFiles(
      o.files_read.map((f) => redactTextInto(f, counts).replaceAll('\u0000', '')),
      roots,
    ),
    files_modified: relativizeFiles(
      o.files_modified.map((f) => redactTextInto(f, counts).replaceAll('\u0000', '')),
      roots,
    ),
  };
}

export function crossingSummary(s: ParsedSummary, roots: readonly string[], counts: RedactionCounts): WireBody {
  const t = (x: string) => crossText(x, roots, counts);
  return {
    kind: 'summary',
    request: t(s.request),
    investigated: t(s.investigated),
    learned: t(s.learned),
    completed: t(s.completed),
    next_steps: t(s.next_steps),
    notes: t(s.notes),
  };
}
