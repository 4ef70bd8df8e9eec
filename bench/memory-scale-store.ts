/**
 * Stores of a heavy user's size for bench/memory-scale.bench.ts (issue 36), made from the memory
 * bench's real-history corpus (bench/memory-corpus.ts, with the CJK set of bench/memory-cjk.ts
 * beside it) repeated with distinct ids and sessions, so words keep their real frequencies:
 * copy c of item i is an observation of session `scale-<c>-<i / 20>` in project
 * `/work/project-<c mod 7>`, a minute after the one before. Around each observation sits what a
 * year of real use leaves: two tool events (their input previews, files, dedup keys), the session
 * and its prompt, one session summary per session, and a compacted history per project (leaf
 * summaries over 20 observations, condensed over 8 of a depth; one in 50 a legacy fallback, so
 * `repair scan` has something to find).
 *
 * Built once per (corpus, size) and kept under MEMORY_SCALE_CACHE (default
 * $TMPDIR/memtrace-memory-scale-cache): the 1M store takes minutes. A store built by an older
 * schema is upgraded in place when the bench first opens it (its schema steps timed: that is the
 * upgrade a user's store goes through). A bench run copies the cached file before anything writes
 * to it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../src/store/index.js';
import type { ParsedObservation } from '../src/vocabulary/observation.js';
import { buildCorpus, type CorpusItem } from './memory-corpus.js';
import { loadCjkSet } from './memory-cjk.js';

export const PROJECTS = 7;
const SESSION_SIZE = 20;
const LEAF_SIZE = 20;
const CONDENSE = 8;
const TOOL_EVENTS_PER_OBSERVATION = 2;
const START_MS = Date.UTC(2025, 0, 1);
const STEP_MS = 60_000;
/** Bumped when what a store holds changes, so a cached store is not reused for another shape. */
const BUILDER_VERSION = 1;

export interface ScaleCorpus {
  /** English corpus then the CJK set: copy c of item i is observation c × items.length + i + 1. */
  items: CorpusItem[];
  /** The key (`commit:…`, `cjk-…`) of an observation id. */
  keyOf(id: number): string | undefined;
  fingerprint: string;
}

/**
 * The corpus as of this commit (MEMORY_SCALE_CORPUS_AT), not the working tree: a cached store
 * stays valid while the code changes, and before/after figures are taken on the same rows.
 */
const CORPUS_AT = process.env.MEMORY_SCALE_CORPUS_AT ?? '44478ae4c2c6aba0c23b178fddd54adbb31d0ef6';

export function scaleCorpus(at: string = CORPUS_AT): ScaleCorpus {
  const items = [...buildCorpus({ at }), ...loadCjkSet().items];
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ v: BUILDER_VERSION, items }))
    .digest('hex')
    .slice(0, 16);
  return { items, keyOf: (id) => items[(id - 1) % items.length]?.key, fingerprint };
}

function cacheDir(): string {
  return process.env.MEMORY_SCALE_CACHE ?? path.join(os.tmpdir(), 'memtrace-memory-scale-cache');
}

/** The cached store of `count` observations, built now when missing. */
export function cachedScaleStore(corpus: ScaleCorpus, count: number, log: (line: string) => void): { file: string; buildS: number | null } {
  const file = path.join(cacheDir(), `${corpus.fingerprint}-${count}`, 'memtrace.db');
  if (fs.existsSync(file)) return { file, buildS: null };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  const started = performance.now();
  buildScaleStore(partial, corpus, count, log);
  fs.renameSync(partial, file);
  return { file, buildS: +((performance.now() - started) / 1000).toFixed(1) };
}

/** A private copy of a cached store in `dataDir`, for paths that write. */
export function copyStore(file: string, dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const target = path.join(dataDir, 'memtrace.db');
  fs.copyFileSync(file, target);
  fs.chmodSync(target, 0o600);
  return target;
}

const sessionOf = (copy: number, i: number) => `scale-${copy}-${Math.floor(i / SESSION_SIZE)}`;
const projectOf = (copy: number) => `/work/project-${copy % PROJECTS}`;

function toolInput(o: ParsedObservation, n: number): { name: string; preview: string; read: string[]; written: string[] } {
  const file = o.files_modified[n] ?? o.files_read[n] ?? o.files_modified[0] ?? 'README.md';
  if (n === 0) return { name: 'Read', preview: JSON.stringify({ file_path: `/work/repo/${file}` }), read: [file], written: [] };
  return {
    name: 'Bash',
    preview: JSON.stringify({ command: `git log --oneline -- ${file} && npm test -- ${file.replace(/\.\w+$/, '')}`, description: o.title.slice(0, 80) }),
    read: [],
    written: o.files_modified.slice(0, 2),
  };
}

function buildScaleStore(file: string, corpus: ScaleCorpus, count: number, log: (line: string) => void): void {
  const store = openStore(file);
  const { db } = store;
  const { items } = corpus;
  const session = db.prepare(
    "INSERT OR IGNORE INTO sessions (session_id, project, prompt, platform, status, created_at, updated_at, ended_at, cwd, checkout) VALUES (?, ?, ?, 'claude-code', 'ended', ?, ?, ?, ?, ?)",
  );
  const toolEvent = db.prepare(
    'INSERT INTO tool_events (queue_id, session_id, tool_use_id, tool_name, input_preview, failed, files_written, files_read, payload_chars, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)',
  );
  const seen = db.prepare('INSERT INTO queue_seen (session_id, tool_use_id, queue_id, created_at) VALUES (?, ?, ?, ?)');
  const written = db.prepare('INSERT OR IGNORE INTO session_files_written (session_id, path) VALUES (?, ?)');
  const leaf = db.prepare(`
    INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id, last_observation_id,
      observation_count, earliest_at, latest_at, provider, model, prompt_version, created_at, updated_at)
    VALUES (@project, @kind, @depth, @level, @content, @tokens, @tokens, @first, @last, @count, @earliest, @latest, 'replay', @model, 'bench', @latest, @latest)`);
  const source = db.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id, source_summary_id) VALUES (?, ?, ?, ?)');
  const condensedInto = db.prepare('UPDATE memory_summaries SET condensed_into = ? WHERE id = ?');
  // Per project: the run of observations not yet in a leaf, and each depth's summaries not yet condensed.
  const pending = new Map<
    string,
    { ids: number[]; titles: string[]; first: number; depths: Array<Array<{ id: number; first: number; last: number; n: number; at: number }>> }
  >();
  let summariesMade = 0;

  const addSummary = (
    project: string,
    depth: number,
    parts: Array<{ id: number; first: number; last: number; n: number; at: number }> | null,
    ids: number[],
    titles: string[],
    at: number,
  ) => {
    summariesMade += 1;
    const fallback = summariesMade % 50 === 0;
    const content = `${titles.slice(0, 12).join('; ')}${fallback ? '\n[Truncated from 4096 tokens]' : ''}`;
    const first = parts ? parts[0]!.first : ids[0]!;
    const last = parts ? parts.at(-1)!.last : ids.at(-1)!;
    const n = parts ? parts.reduce((s, p) => s + p.n, 0) : ids.length;
    const id = Number(
      leaf.run({
        project,
        kind: depth === 0 ? 'leaf' : 'condensed',
        depth,
        level: fallback ? 'fallback' : 'normal',
        content,
        tokens: Math.ceil(content.length / 4),
        first,
        last,
        count: n,
        earliest: at - n * STEP_MS,
        latest: at,
        model: fallback ? 'emergency-fallback' : 'replay-model',
      }).lastInsertRowid,
    );
    if (parts) {
      parts.forEach((p, ordinal) => {
        source.run(id, ordinal, null, p.id);
        condensedInto.run(id, p.id);
      });
    } else for (const [ordinal, o] of ids.entries()) source.run(id, ordinal, o, null);
    return { id, first, last, n, at };
  };
  const pushUp = (project: string, depth: number, node: { id: number; first: number; last: number; n: number; at: number }) => {
    const state = pending.get(project)!;
    const level = state.depths[depth] ?? [];
    state.depths[depth] = level;
    level.push(node);
    if (state.depths[depth]!.length === CONDENSE) {
      const parts = state.depths[depth]!;
      state.depths[depth] = [];
      pushUp(project, depth + 1, addSummary(project, depth + 1, parts, [], [`history of ${parts.length} summaries at depth ${depth}`], node.at));
    }
  };

  let queueId = 0;
  const batch = db.transaction((from: number, to: number) => {
    for (let id = from; id < to; id += 1) {
      const copy = Math.floor((id - 1) / items.length);
      const i = (id - 1) % items.length;
      const item = items[i]!;
      const sessionId = sessionOf(copy, i);
      const project = projectOf(copy);
      const at = START_MS + (id - 1) * STEP_MS;
      if (i % SESSION_SIZE === 0) {
        session.run(
          sessionId,
          project,
          `Continue: ${item.observation.title}`.slice(0, 200),
          at,
          at + SESSION_SIZE * STEP_MS,
          at + SESSION_SIZE * STEP_MS,
          project,
          project,
        );
        store.summaries.insert(
          {
            request: `Continue: ${item.observation.title}`,
            investigated: item.observation.narrative.slice(0, 300),
            learned: item.observation.facts.join(' ') || item.observation.title,
            completed: item.observation.title,
            next_steps: '',
            notes: '',
          },
          { sessionId, project, sourceMessageIds: [], provider: 'replay', model: 'replay-model', promptVersion: 'bench', createdAt: at },
        );
      }
      const sources: number[] = [];
      for (let n = 0; n < TOOL_EVENTS_PER_OBSERVATION; n += 1) {
        queueId += 1;
        const t = toolInput(item.observation, n);
        const toolUseId = `toolu_scale_${queueId}`;
        toolEvent.run(queueId, sessionId, toolUseId, t.name, t.preview, JSON.stringify(t.written), JSON.stringify(t.read), 800 + (queueId % 7) * 900, at);
        seen.run(sessionId, toolUseId, queueId, at);
        for (const f of t.written) written.run(sessionId, `/work/repo/${f}`);
        sources.push(queueId);
      }
      store.observations.insert(
        item.observation,
        {
          sessionId,
          project,
          sourceMessageIds: sources,
          provider: 'replay',
          model: 'replay-model',
          promptVersion: 'bench',
          discoveryTokens: 900,
          createdAt: at,
        },
        [],
        id,
      );
      const state = pending.get(project) ?? { ids: [], titles: [], first: id, depths: [] };
      pending.set(project, state);
      state.ids.push(id);
      state.titles.push(item.observation.title);
      if (state.ids.length === LEAF_SIZE) {
        const node = addSummary(project, 0, null, state.ids, state.titles, at);
        state.ids = [];
        state.titles = [];
        pushUp(project, 0, node);
      }
    }
  });
  const started = performance.now();
  for (let at = 1; at <= count; at += 5_000) {
    batch(at, Math.min(count + 1, at + 5_000));
    if ((at - 1) % 100_000 === 0 && at > 1)
      log(`memory-scale: built ${at - 1} of ${count} observations (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
}
