import type Database from 'better-sqlite3';
import type { CollectedEvent } from '../collector/collected-event.js';
import { compileSQLite, PROPERTY_FUNCTIONS } from './compile-sqlite.js';
import { propertyText, tileNumber } from './posthog-property.js';
import { openRankedGroups, RANKED_STATE_DDL, RANKED_STATE_TABLE } from './ranked-groups.js';
import { addCompensated, type CompensatedSum } from './sql-values.js';
import { compileTileEvaluator, type GroupValues } from './tile-eval.js';
import type { Tile } from './tile-ir.js';
import { planTile } from './tile-plan.js';
import { finiteCells, type TileResult, type TileRow } from './tile-result.js';
import { TILES } from './tiles.js';

export interface RefreshStats {
  /** Stored events the slowest tile had not yet counted, before this refresh. */
  pending: number;
  ms: number;
}

export interface StoredEvent extends CollectedEvent {
  seq: number;
}

export interface TileSums {
  /**
   * Adds events the caller has just stored, inside the caller's transaction and in `seq` order,
   * to every tile that had counted everything before them (`fromSeq` is the store's last seq
   * before these rows). A tile still catching up is left alone: `refresh` reaches these rows.
   */
  addStored(events: readonly StoredEvent[], fromSeq: number): void;
  /** Drops what is cached in memory: the caller's transaction rolled back. */
  forget(): void;
  /** Counts every stored event a tile has not counted yet (a new store, a changed tile). */
  refresh(onProgress?: (done: number, total: number) => void): RefreshStats;
  /** Refreshes, then reads every tile from its sums. */
  read(): TileResult[];
}

/** Bump when the JavaScript evaluation changes meaning, so stored sums are rebuilt. */
const EVALUATOR_VERSION = 2;
/** Rows per transaction while catching up, so a large backlog reports progress and other writers get turns. */
const CHUNK_ROWS = 50_000;

interface Group {
  xk: number | string;
  series: string;
  sums: CompensatedSum[];
}

/**
 * Per-tile tables of sums over the collector's `events`, kept at ingest: every tile expression is
 * a sum of per-event values, so each new event adds its values to its group's running sums, in
 * the same transaction that stores it (exactly once per uuid, crash or not). Reading the
 * dashboard then reads a few hundred rows whatever the store's size. The sums are stepped the
 * way SQLite's sum() steps, so they equal the plain compiled SQL (`queryTilesDirect`).
 * A tile whose definition changed is rebuilt from the stored events by `refresh`.
 */
export function openTileSums(db: Database.Database, tiles: readonly Tile[] = TILES): TileSums {
  registerPropertyFunctions(db);
  db.exec('CREATE TABLE IF NOT EXISTS dashboard_tiles (tile TEXT PRIMARY KEY, definition TEXT NOT NULL, through_seq INTEGER NOT NULL)');
  db.exec(RANKED_STATE_DDL);
  const state = db.prepare<[string], { definition: string; through_seq: number }>('SELECT definition, through_seq FROM dashboard_tiles WHERE tile = ?');
  const setState = db.prepare(
    'INSERT INTO dashboard_tiles (tile, definition, through_seq) VALUES (?, ?, ?) ON CONFLICT (tile) DO UPDATE SET definition = excluded.definition, through_seq = excluded.through_seq',
  );
  const advance = db.prepare('UPDATE dashboard_tiles SET through_seq = ? WHERE tile = ?');
  const maxSeq = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM events');

  const compiled = tiles.map((tile) => {
    const plan = planTile(tile);
    const sql = compileSQLite(tile);
    return {
      tile,
      plan,
      sql,
      definition: `evaluator v${EVALUATOR_VERSION}\n${sql.createTable}\n${sql.query}`,
      evaluate: compileTileEvaluator(plan),
    };
  });
  const forgetRanking = db.prepare(`DELETE FROM ${RANKED_STATE_TABLE} WHERE tile = ?`);
  db.transaction(() => {
    for (const c of compiled) {
      // A store from before rankings gets an empty one, with no watermark: it is counted from the sums, not the events.
      if (c.sql.ranked) db.exec(c.sql.ranked.createTable);
      if (state.get(c.tile.id)?.definition === c.definition) continue;
      db.exec(`DROP TABLE IF EXISTS "${c.sql.table}"`);
      if (c.sql.seenTable) db.exec(`DROP TABLE IF EXISTS "${c.sql.seenTable}"`);
      db.exec(c.sql.createTable);
      if (c.sql.ranked) {
        db.exec(`DELETE FROM "${c.sql.ranked.table}"`);
        forgetRanking.run(c.tile.id);
      }
      setState.run(c.tile.id, c.definition, 0);
    }
  }).immediate();

  const tilesState = compiled.map((c) => {
    const n = c.plan.leaves.length;
    const columns = Array.from({ length: n }, (_, i) => `s${i}, c${i}`).join(', ');
    return {
      ...c,
      load: db.prepare(`SELECT ${columns} FROM "${c.sql.table}" WHERE xk = ? AND series = ?`).raw(),
      save: db.prepare(`INSERT OR REPLACE INTO "${c.sql.table}" (xk, series, ${columns}) VALUES (?, ?${', ?, ?'.repeat(n)})`),
      readAll: db.prepare(c.sql.read),
      // An installs leaf adds 1 only for the first event of an install in its group: the pairs are rows, so every connection agrees.
      markSeen: c.sql.seenTable ? db.prepare(`INSERT OR IGNORE INTO "${c.sql.seenTable}" (xk, series, leaf, install) VALUES (?, ?, ?, ?)`) : null,
      ranked: c.sql.ranked ? openRankedGroups(db, c.plan, c.sql.ranked, c.sql.table) : null,
    };
  });
  type TileState = (typeof tilesState)[number];

  /*
   * Groups and watermarks are cached between transactions while no other connection has written
   * the file (SQLite's data_version moves only for other connections' commits); a rollback of
   * ours drops the cache (`forget`). So a batch costs its events' evaluation plus one write per
   * touched group, and two processes sharing a store still never count an event twice.
   */
  const dataVersion = () => db.pragma('data_version', { simple: true }) as number;
  let knownVersion = -1;
  const groupCache = tilesState.map(() => new Map<string, Group>());
  const throughCache = new Map<string, number>();
  const validate = () => {
    const version = dataVersion();
    if (version === knownVersion) return;
    knownVersion = version;
    for (const c of groupCache) c.clear();
    throughCache.clear();
    for (const t of tilesState) t.ranked?.forget();
  };
  const through = (t: TileState) => {
    let at = throughCache.get(t.tile.id);
    if (at === undefined) {
      at = state.get(t.tile.id)?.through_seq ?? 0;
      throughCache.set(t.tile.id, at);
    }
    return at;
  };
  const setThrough = (t: TileState, seq: number) => {
    advance.run(seq, t.tile.id);
    throughCache.set(t.tile.id, seq);
    t.ranked?.advance(seq);
  };
  /** Before a tile's sums move on from `seq`: its ranking reflects them too (rebuilt from them if not). */
  const rankedThrough = (t: TileState, seq: number) => {
    if (t.ranked && !t.ranked.reflects(seq)) t.ranked.rebuild(seq);
  };

  /** Folds events into one tile's sums: each touched group is stepped per event, then written once. */
  const fold = (index: number, events: Iterable<CollectedEvent>) => {
    const t = tilesState[index]!;
    const cache = groupCache[index]!;
    const touched = new Set<Group>();
    for (const event of events) {
      const v: GroupValues | null = t.evaluate(event);
      if (v === null) continue;
      const key = `${typeof v.xk === 'number' ? 'n' : 's'}${v.xk}\u0000${v.series}`;
      let group = cache.get(key);
      if (group === undefined) {
        // Week keys are stored as INTEGER, like the plain SQL's grouping key.
        const stored = t.load.get(typeof v.xk === 'number' ? BigInt(v.xk) : v.xk, v.series) as number[] | undefined;
        // A NULL compensation is a NaN SQLite could not keep: it stays overflowed.
        const sums = v.values.map((_, i) => (stored ? { s: stored[2 * i]!, c: stored[2 * i + 1] ?? Number.NaN } : { s: 0, c: 0 }));
        group = { xk: v.xk, series: v.series, sums };
        cache.set(key, group);
      }
      for (let i = 0; i < v.values.length; i += 1) {
        if (!t.plan.distinct.has(i)) addCompensated(group.sums[i]!, v.values[i]!);
        else if (v.values[i] !== 0 && t.markSeen!.run(typeof v.xk === 'number' ? BigInt(v.xk) : v.xk, v.series, i, v.install).changes === 1)
          addCompensated(group.sums[i]!, 1);
      }
      touched.add(group);
    }
    for (const g of touched) {
      t.save.run(typeof g.xk === 'number' ? BigInt(g.xk) : g.xk, g.series, ...g.sums.flatMap((sum) => [sum.s, sum.c]));
      t.ranked?.place(g.xk, g.sums);
    }
  };

  const addStored = (events: readonly StoredEvent[], fromSeq: number) => {
    if (events.length === 0) return;
    validate();
    const toSeq = events[events.length - 1]!.seq;
    tilesState.forEach((t, i) => {
      if (through(t) !== fromSeq) return;
      rankedThrough(t, fromSeq);
      fold(i, events);
      setThrough(t, toSeq);
    });
  };

  const forget = () => {
    knownVersion = -1;
  };

  const rows = db.prepare<[number, number], { seq: number; event: string; distinct_id: string; timestamp: number; properties: string }>(
    'SELECT seq, event, distinct_id, timestamp, properties FROM events WHERE seq > ? AND seq <= ? ORDER BY seq',
  );
  /** One chunk for every tile behind `to`; each tile re-reads its watermark inside the transaction. */
  const catchUp = db.transaction((to: number) => {
    validate();
    const behind = tilesState.map((t, index) => ({ t, index, through: through(t) })).filter((b) => b.through < to);
    if (behind.length === 0) return;
    const from = Math.min(...behind.map((b) => b.through));
    const events: StoredEvent[] = [];
    for (const r of rows.iterate(from, to)) {
      events.push({
        seq: r.seq,
        uuid: '',
        event: r.event,
        distinctId: r.distinct_id,
        timestamp: r.timestamp,
        properties: JSON.parse(r.properties) as Record<string, unknown>,
      });
    }
    for (const b of behind) {
      rankedThrough(b.t, b.through);
      fold(b.index, b.through === from ? events : events.filter((e) => e.seq > b.through));
      setThrough(b.t, to);
    }
  });

  /** Rankings behind their tile's sums (a store from before them, or an older memtrace wrote since) are counted from the sums. */
  const rerank = db.transaction(() => {
    validate();
    for (const t of tilesState) rankedThrough(t, through(t));
  });

  const refresh = (onProgress?: (done: number, total: number) => void): RefreshStats => {
    const started = performance.now();
    const upTo = maxSeq.get()?.seq ?? 0;
    validate();
    const lowest = Math.min(upTo, ...tilesState.map(through));
    const pending = upTo - lowest;
    for (let at = lowest; at < upTo; ) {
      at = Math.min(upTo, at + CHUNK_ROWS);
      try {
        catchUp.immediate(at);
      } catch (error) {
        forget();
        throw error;
      }
      onProgress?.(at - lowest, pending);
    }
    if (tilesState.some((t) => t.ranked && !t.ranked.reflects(through(t)))) {
      try {
        rerank.immediate();
      } catch (error) {
        forget();
        throw error;
      }
    }
    return { pending, ms: performance.now() - started };
  };

  return {
    addStored,
    forget,
    refresh,
    read() {
      refresh();
      // One snapshot for every tile, so a ranking and its sums are read as they were committed together.
      return db.transaction(() =>
        tilesState.map((t) => {
          const started = performance.now();
          // A ranking another connection left behind since the refresh is not read: the tile is ranked from its sums instead.
          const ranked = t.ranked?.rows(state.get(t.tile.id)?.through_seq ?? 0) ?? null;
          const result = finiteCells(ranked ?? (t.readAll.all() as TileRow[]));
          return { tile: t.tile, columns: t.sql.columns, rows: result, ms: performance.now() - started };
        }),
      )();
    },
  };
}

/** Every tile by its plain compiled SQL, one pass over the raw events each (slow on big stores; the reference the sums must equal). */
export function queryTilesDirect(db: Database.Database, tiles: readonly Tile[] = TILES): TileResult[] {
  registerPropertyFunctions(db);
  return tiles.map((tile) => {
    const sql = compileSQLite(tile);
    const started = performance.now();
    const rows = finiteCells(db.prepare(sql.query).all() as TileRow[]);
    return { tile, columns: sql.columns, rows, ms: performance.now() - started };
  });
}

/** The functions compiled tile SQL calls to read a property the way PostHog does (posthog-property.ts). */
function registerPropertyFunctions(db: Database.Database): void {
  db.function(PROPERTY_FUNCTIONS.text, { deterministic: true }, (json: unknown) =>
    typeof json === 'string' ? propertyText(JSON.parse(json) as unknown) : null,
  );
  db.function(PROPERTY_FUNCTIONS.number, { deterministic: true }, (text: unknown) => tileNumber(typeof text === 'string' ? text : null));
}
