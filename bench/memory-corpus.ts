/**
 * A retrieval set from memtrace's own development history, built when the bench runs: every
 * commit of this repository as the observation an agent would have stored about it (its subject,
 * the files it changed), every source file's header comment and every section of docs/ as the
 * discovery an agent makes reading them. Questions (bench/data/memory-questions.json) were written
 * the way a developer asks weeks later, in other words than the titles, each naming the one item
 * it is about; they are split once into a tune half and a test half that tuning never looked at.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ObservationType, ParsedObservation } from '../src/vocabulary/observation.js';

export interface CorpusItem {
  /** `commit:<7 hex>`, `file:<path>` or `doc:<path>#<heading>`. */
  key: string;
  createdAt: number;
  observation: ParsedObservation;
}

export interface Question {
  q: string;
  target: string;
  split: 'tune' | 'test';
}

const ROOT = path.resolve(import.meta.dirname, '..');

function commitType(subject: string): ObservationType {
  const s = subject.toLowerCase();
  if (/^(fix|regression)|\bfix(es|ed)?\b|\bbug\b/.test(s)) return 'bugfix';
  if (/^(remove|drop|one |move|rename|refactor)/.test(s)) return 'refactor';
  if (/^(docs|readme)/.test(s)) return 'change';
  if (/^(tests?|e2e|bench|canary|crash test|regression test)/.test(s)) return 'change';
  return 'feature';
}

/** Subject up to its first clause break, as an observer would title it; the rest is the narrative. */
function splitSubject(subject: string): { title: string; rest: string } {
  const cut = subject.search(/[;:(]/);
  if (cut > 12)
    return {
      title: subject.slice(0, cut).trim(),
      rest: subject
        .slice(cut + 1)
        .replace(/\)$/, '')
        .trim(),
    };
  return { title: subject, rest: '' };
}

/** Where the corpus's files are read: the working tree, or one commit of the repository. */
interface Source {
  at: string | null;
  list(dir: string): string[];
  read(file: string): string;
}

function workingTree(): Source {
  return {
    at: null,
    list: (dir) => (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((f) => `${dir}/${f}`),
    read: (file) => fs.readFileSync(path.join(ROOT, file), 'utf8'),
  };
}

function commitTree(at: string): Source {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return {
    at,
    list: (dir) => git('ls-tree', '-r', '--name-only', at, '--', `${dir}/`).split('\n').filter(Boolean),
    read: (file) => git('show', `${at}:${file}`),
  };
}

function commitItems(source: Source): CorpusItem[] {
  const log = execFileSync('git', ['log', '--no-merges', '--format=%x1e%h%x1f%ct%x1f%s%x1f%b', '--name-only', ...(source.at ? [source.at] : [])], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return log
    .split('\x1e')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [hash, time, subject, rest] = chunk.split('\x1f') as [string, string, string, string];
      const lines = rest.split('\n');
      const files = lines.filter((l) => /^[\w.@/-]+\.[\w]+$|^[\w.-]+\/[\w./@-]+$/.test(l.trim())).map((l) => l.trim());
      const body = lines
        .filter((l) => !files.includes(l.trim()))
        .join('\n')
        .trim();
      const { title, rest: more } = splitSubject(subject);
      const concepts = [
        ...new Set(
          files
            .filter((f) => f.startsWith('src/'))
            .map((f) => f.split('/')[1]!)
            .filter((d) => !d.includes('.')),
        ),
      ].slice(0, 6);
      return {
        key: `commit:${hash.slice(0, 7)}`,
        createdAt: Number(time) * 1000,
        observation: {
          type: commitType(subject),
          title,
          subtitle: '',
          narrative: [more, body].filter(Boolean).join('\n\n'),
          facts: [],
          concepts,
          files_read: [],
          files_modified: files.slice(0, 40),
        },
      };
    });
}

/** The leading doc comment of a TypeScript file, as plain text. */
function headerComment(text: string): string | null {
  const m = /^(?:import[^\n]*\n|\s*\n)*\s*\/\*\*([\s\S]*?)\*\//.exec(text) ?? /\n\/\*\*([\s\S]*?)\*\/\s*\n(?:export )/.exec(text);
  if (!m) return null;
  return m[1]!
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function sourceItems(source: Source): CorpusItem[] {
  const files = source
    .list('src')
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const items: CorpusItem[] = [];
  files.forEach((file, i) => {
    const comment = headerComment(source.read(file));
    if (!comment || comment.length < 40) return;
    const first = comment.split(/(?<=[.:])\s/)[0]!.slice(0, 120);
    items.push({
      key: `file:${file}`,
      createdAt: Date.UTC(2026, 0, 1) + i * 60_000,
      observation: {
        type: 'discovery',
        title: `${path.basename(file)}: ${first}`,
        subtitle: '',
        narrative: comment,
        facts: [],
        concepts: [file.split('/')[1]!.replace(/\.ts$/, '')],
        files_read: [file],
        files_modified: [],
      },
    });
  });
  return items;
}

function docItems(source: Source): CorpusItem[] {
  const docs = source
    .list('docs')
    .map((f) => f.slice('docs/'.length))
    .filter((f) => f.endsWith('.md') && !f.includes('/'))
    .sort();
  const items: CorpusItem[] = [];
  for (const doc of docs) {
    const text = source.read(`docs/${doc}`);
    for (const section of text.split(/\n(?=## )/)) {
      const heading = /^#{1,2} (.+)$/m.exec(section)?.[1]?.trim();
      if (!heading) continue;
      const body = section.replace(/^#{1,2} .+$/m, '').trim();
      if (body.length < 80) continue;
      items.push({
        key: `doc:docs/${doc}#${heading}`,
        createdAt: Date.UTC(2026, 1, 1) + items.length * 60_000,
        observation: {
          type: 'discovery',
          title: `${doc}: ${heading}`,
          subtitle: '',
          narrative: body.slice(0, 2_000),
          facts: [],
          concepts: [doc.replace(/\.md$/, '')],
          files_read: [`docs/${doc}`],
          files_modified: [],
        },
      });
    }
  }
  return items;
}

/** `at`: a commit, to read the history and files as they were then (a corpus that does not move as the tree changes). */
export function buildCorpus(options: { at?: string } = {}): CorpusItem[] {
  const source = options.at ? commitTree(options.at) : workingTree();
  return [...commitItems(source), ...sourceItems(source), ...docItems(source)];
}

export function loadQuestions(): Question[] {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'data', 'memory-questions.json'), 'utf8')) as Question[];
}
