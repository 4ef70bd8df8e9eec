import type { Migration } from '../migrate.js';
import { CORE_SCHEMA } from './0001-core.js';
import { STORE_META_SCHEMA } from './0002-store-meta.js';
import { SESSION_DETAILS_SCHEMA } from './0003-session-details.js';
import { TELEMETRY_SCHEMA } from './0100-telemetry.js';
import { COMPACTION_SCHEMA } from './0200-compaction.js';
import { MINING_SCHEMA } from './0300-mining.js';
import { CLAIM_PROVENANCE_SCHEMA } from './0400-claim-provenance.js';
import { MEMORY_SEARCH_SCHEMA } from './0500-memory-search.js';
import { RETENTION_SCHEMA } from './0600-retention.js';
import { TOOL_EVENT_OUTCOME_SCHEMA } from './0700-tool-event-outcome.js';
import { OBSERVER_BATCHES_SCHEMA } from './0800-observer-batches.js';
import { OBSERVER_SPEND_SCHEMA } from './0810-observer-spend.js';
import { SEARCH_EVERY_SCRIPT_SCHEMA } from './0900-search-every-script.js';
import { CHECKOUTS_SCHEMA } from './0901-checkouts.js';
import { SUBAGENTS_SCHEMA } from './0902-subagents.js';
import { IMPORT_LEDGER_SCHEMA } from './0903-import-ledger.js';
import { SHARE_SCHEMA } from './1000-share.js';
import { SEARCH_RECENT_SCHEMA } from './1200-search-recent.js';
import { RECENT_ORDERS_SCHEMA } from './1201-recent-orders.js';
import { CONDENSED_INTO_SCHEMA } from './1300-condensed-into.js';
import { RECENT_WINDOW_SCHEMA } from './1400-recent-window.js';

/**
 * Every schema step of memtrace.db, in order. A step is never edited or removed once released;
 * a change is a new step appended here (one file per step).
 */
export const MIGRATIONS: readonly Migration[] = [
  CORE_SCHEMA,
  TELEMETRY_SCHEMA,
  STORE_META_SCHEMA,
  SESSION_DETAILS_SCHEMA,
  COMPACTION_SCHEMA,
  MINING_SCHEMA,
  CLAIM_PROVENANCE_SCHEMA,
  MEMORY_SEARCH_SCHEMA,
  RETENTION_SCHEMA,
  TOOL_EVENT_OUTCOME_SCHEMA,
  OBSERVER_BATCHES_SCHEMA,
  OBSERVER_SPEND_SCHEMA,
  SEARCH_EVERY_SCRIPT_SCHEMA,
  CHECKOUTS_SCHEMA,
  SUBAGENTS_SCHEMA,
  IMPORT_LEDGER_SCHEMA,
  SHARE_SCHEMA,
  SEARCH_RECENT_SCHEMA,
  RECENT_ORDERS_SCHEMA,
  CONDENSED_INTO_SCHEMA,
  RECENT_WINDOW_SCHEMA,
];
