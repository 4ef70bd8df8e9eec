import type { TileResult } from '../dashboards/tile-result.js';
import type { ReviewSource } from '../review/review-source.js';
import type { CollectedEvent } from './collected-event.js';

/** What one insert did: events new to the store, and those it already held (the same uuid). */
export interface InsertOutcome {
  stored: number;
  duplicates: number;
}

/**
 * A collector store, whatever engine keeps it (SQLite, embedded ClickHouse, a ClickHouse server):
 * events go in exactly once per uuid, and the tiles and the release review come out equal on
 * every engine (docs/dashboards.md#collector-stores-sqlite-or-clickhouse).
 */
export interface FleetStore {
  /** Names the store in messages ("the collector store at …"). */
  where: string;
  insert(events: readonly CollectedEvent[]): Promise<InsertOutcome>;
  count(): Promise<number>;
  /** Every tile, from what the store keeps up to date at ingest. */
  readTiles(): Promise<TileResult[]>;
  /** Every tile by its plain query over the raw events: slow on a large store, the reference the kept sums equal. */
  queryTilesPlain(): Promise<TileResult[]>;
  reviewSource(): ReviewSource;
  close(): Promise<void>;
}
