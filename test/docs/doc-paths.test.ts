import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone: what its documents name exists in it, and what the code cites
 * is a document of this repository (docs/interfaces.md holds the external names the code relies on).
 *
 * (a) every repository path that README.md and docs/*.md name — in backticks, links, code
 *     blocks or prose — exists; links between documents land on an existing heading;
 * (b) every document a file under src/ cites (`docs/x.md`, `docs/x.md#anchor`) exists, and so
 *     does the heading behind the anchor (GitHub's slug of it);
 * (c) nothing under src/ cites the product spec, which lives outside the repository.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Top-level folders whose paths documents name; other words with a slash are not paths. */
const PREFIXES = ['src', 'docs', 'test', 'bench', 'bin', 'scripts', 'hooks'];
/**
 * A path starts a token: not preceded by anything that makes it part of a longer path
 * (`DATA_DIR/spool`, `<package>/bin/…`, `bundle/docs/…`, `~/.claude/…`, `$HOME/…`).
 */
const PATH_TOKEN = new RegExp(`(?<![\\w./~$<>{}-])((?:${PREFIXES.join('|')})/[^\\s\`'"()\\[\\],;|]*)`, 'g');
/** A glob or a placeholder is a pattern, not a path. */
const NOT_A_PATH = /[*?{}<>…$]/;
const MARKDOWN_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const DOC_CITATION = /(?<![\w./-])(docs\/[A-Za-z0-9_./-]+?\.md)(?:#([A-Za-z0-9_-]+))?/g;
const SPEC_CITATION = /\bSPEC(?:\s*§|\.md\b)/;

interface Finding {
  where: string;
  what: string;
}

function rel(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full, keep));
    else if (entry.isFile() && keep(full)) out.push(full);
  }
  return out.sort();
}

function documents(): string[] {
  return [path.join(ROOT, 'README.md'), ...walk(path.join(ROOT, 'docs'), (f) => f.endsWith('.md'))];
}

function sourceFiles(): string[] {
  return walk(path.join(ROOT, 'src'), (f) => /\.(?:[cm]?[jt]s|json)$/.test(f));
}

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split(/\r?\n/);
}

/** GitHub's anchor for a heading's text: its rendered text lower-cased, punctuation dropped, spaces as hyphens. */
function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/\*+/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a markdown file offers: one per heading outside code blocks (repeats get -1, -2 …), and explicit ids. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of lines(file)) {
    const fenceMark = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fenceMark) {
      if (fence === null) fence = fenceMark[0]!;
      else if (fenceMark[0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    for (const explicit of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(explicit[1]!);
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** What is wrong with a reference to `target` (a repository file or folder) and its optional anchor, or null. */
function problemWith(target: string, anchor: string | null): string | null {
  if (!fs.existsSync(target)) return 'does not exist';
  if (anchor === null || anchor === '') return null;
  if (!target.endsWith('.md') || !fs.statSync(target).isFile()) return null;
  return anchorsOf(target).has(anchor.toLowerCase()) ? null : `has no heading with anchor #${anchor}`;
}

function splitAnchor(ref: string): [string, string | null] {
  const at = ref.indexOf('#');
  return at < 0 ? [ref, null] : [ref.slice(0, at), ref.slice(at + 1)];
}

/** https:, mailto: … */
function isExternal(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('//');
}

/** A link to another site names a path of that site (`[src/db/migration.ts](https://github.com/…)`), not one of ours. */
function withoutExternalLinks(line: string): string {
  return line.replace(MARKDOWN_LINK, (link, ref: string) => (isExternal(ref) ? ' ' : link));
}

/** Paths that README.md and docs/*.md name and that are not in the repository. */
function missingDocumentPaths(): Finding[] {
  const missing: Finding[] = [];
  for (const doc of documents()) {
    lines(doc).forEach((line, index) => {
      const where = `${rel(doc)}:${index + 1}`;
      // Links resolve against the document's own folder.
      for (const match of line.matchAll(MARKDOWN_LINK)) {
        const ref = match[1]!;
        if (isExternal(ref)) continue;
        const [file, anchor] = splitAnchor(ref);
        const target = file === '' ? doc : path.resolve(path.dirname(doc), decodeURIComponent(file));
        const problem = problemWith(target, anchor);
        if (problem) missing.push({ where, what: `link ${ref} ${problem}` });
      }
      // Paths in text and code resolve against the repository root.
      for (const match of withoutExternalLinks(line).matchAll(PATH_TOKEN)) {
        const token = match[1]!.replace(/[.:,!]+$/, '');
        if (NOT_A_PATH.test(token)) continue;
        const [file, anchor] = splitAnchor(token);
        const problem = problemWith(path.join(ROOT, file), anchor);
        if (problem) missing.push({ where, what: `${token} ${problem}` });
      }
    });
  }
  return dedupe(missing);
}

/** Documents (and headings) cited under src/ that the repository does not have. */
function brokenSourceCitations(): Finding[] {
  const broken: Finding[] = [];
  for (const file of sourceFiles()) {
    lines(file).forEach((line, index) => {
      for (const match of line.matchAll(DOC_CITATION)) {
        const problem = problemWith(path.join(ROOT, match[1]!), match[2] ?? null);
        if (problem) broken.push({ where: `${rel(file)}:${index + 1}`, what: `${match[0]} ${problem}` });
      }
    });
  }
  return broken;
}

/** Lines under src/ that cite the spec, which is not in the repository. */
function specCitations(): Finding[] {
  const found: Finding[] = [];
  for (const file of sourceFiles()) {
    lines(file).forEach((line, index) => {
      if (SPEC_CITATION.test(line)) found.push({ where: `${rel(file)}:${index + 1}`, what: line.trim() });
    });
  }
  return found;
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.where} ${f.what}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One line per finding, so a failure prints the list to fix and nothing else. */
function listed(findings: Finding[]): string[] {
  return findings.map((f) => `${f.where}: ${f.what}`);
}

describe('the repository stands alone', () => {
  it('(a) every repository path named in README.md and docs/*.md exists', () => {
    const missing = missingDocumentPaths();
    expect(listed(missing), 'paths named in the documents that are not in the repository').toEqual([]);
  });

  it('(b) every document cited under src/ exists, with the heading its anchor names', () => {
    const broken = brokenSourceCitations();
    expect(listed(broken), 'citations under src/ of documents or headings that do not exist').toEqual([]);
  });

  it('(c) nothing under src/ cites the spec, which is not in the repository', () => {
    const found = specCitations();
    expect(listed(found), 'SPEC citations under src/ (cite docs/interfaces.md#<section> instead)').toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('slug headings the way GitHub does', () => {
    expect(githubSlug('Worker HTTP API')).toBe('worker-http-api');
    expect(githubSlug('memtrace install and uninstall')).toBe('memtrace-install-and-uninstall');
    expect(githubSlug('Drop-or-parse decision')).toBe('drop-or-parse-decision');
    expect(githubSlug('`observer_turn_rollup`')).toBe('observer_turn_rollup');
    expect(githubSlug('`$exception`')).toBe('exception');
    expect(githubSlug("The hooks' socket (Unix)")).toBe('the-hooks-socket-unix');
    expect(githubSlug('Why this and not a columnar engine — measured')).toBe('why-this-and-not-a-columnar-engine--measured');
    expect(githubSlug('See [install.md](install.md)')).toBe('see-installmd');
  });

  it('find a path wherever a document names it, and skip patterns and paths inside other folders', () => {
    const tokens = (text: string) => [...text.matchAll(PATH_TOKEN)].map((m) => m[1]!.replace(/[.:,!]+$/, '')).filter((t) => !NOT_A_PATH.test(t));
    expect(tokens('see `src/a.ts`, [x](docs/b.md#c) and src/d/e.ts.')).toEqual(['src/a.ts', 'docs/b.md#c', 'src/d/e.ts']);
    expect(tokens('`DATA_DIR/spool` `~/.memtrace/bin/x` `<package>/bin/memtrace-hook` `bundle/docs/hooks/index.md`')).toEqual([]);
    expect(tokens('`test/e2e/claude-code-*.test.ts` `src/hosts/<host>` `src/context/*` `docs/…`')).toEqual([]);
    expect(
      tokens(withoutExternalLinks('its schema in [`src/db/migration.ts`](https://github.com/o/r/blob/main/src/db/migration.ts), ours in [x](src/a.ts)')),
    ).toEqual(['src/a.ts']);
  });

  it('find citations of documents in source text', () => {
    const cites = (text: string) => [...text.matchAll(DOC_CITATION)].map((m) => [m[1], m[2] ?? null]);
    expect(cites('see docs/mining.md. and docs/interfaces.md#worker-http-api')).toEqual([
      ['docs/mining.md', null],
      ['docs/interfaces.md', 'worker-http-api'],
    ]);
    expect(cites('[G-docs] bundle/docs/hooks/reference.md')).toEqual([]);
    expect(SPEC_CITATION.test('(SPEC §4.1)')).toBe(true);
    expect(SPEC_CITATION.test('../shared/SPEC.md')).toBe(true);
    expect(SPEC_CITATION.test('SPECIAL §')).toBe(false);
  });

  it('know the anchors of docs/interfaces.md that the code cites', () => {
    const anchors = anchorsOf(path.join(ROOT, 'docs/interfaces.md'));
    for (const anchor of [
      'configuration',
      'command-line',
      'worker-http-api',
      'hook-socket',
      'storage',
      'drop-or-parse-decision',
      'telemetry-events',
      'dashboards',
      'compaction-and-repair',
      'transcript-mining',
      'memory-surface',
      'agent-hosts',
    ]) {
      expect(anchors.has(anchor), anchor).toBe(true);
    }
  });
});
