import type Database from 'better-sqlite3';
import type { ObservationType } from '../vocabulary/observation.js';

/** One entry of a timeline: an observation or a session summary, by id and title only. */
export interface TimelineItem {
  kind: 'observation' | 'summary';
  id: number;
  type: ObservationType | 'summary';
  title: string;
  session_id: string;
  project: string | null;
  created_at: string;
  /** Who made it in a shared project; null: this machine. */
  origin: string | null;
}

export type TimelineAnchor = { observationId: number } | { sessionId: string } | { recent: true; project?: string | null };

export interface TimelineRequest {
  anchor: TimelineAnchor;
  /** Neighbours in time on each side (default 5); for `recent`, `before` is how many. */
  before?: number;
  after?: number;
}

export interface Timeline {
  /** Oldest first. */
  items: TimelineItem[];
  /** The observation asked about, or the session's own items. */
  focus: Array<{ kind: TimelineItem['kind']; id: number }>;
}

const DEFAULT_NEIGHBOURS = 5;
export const MAX_NEIGHBOURS = 100;
/** A session longer than this shows its latest items. */
const MAX_SESSION_ITEMS = 200;

/**
 * Items order by (created_at, observations before summaries, id); cursors compare on that key.
 * Each kind is read on its own, in index order and up to the limit, and the two merged here: a
 * query over a UNION of both tables sorted the whole project (every row of it at a million
 * observations) before it could take the newest fifty.
 */
const OBSERVATION = "SELECT 'observation' AS kind, 0 AS kind_order, id, type, title, session_id, project, created_at, origin FROM observations";
const SUMMARY = "SELECT 'summary' AS kind, 1 AS kind_order, id, 'summary' AS type, request AS title, session_id, project, created_at, origin FROM summaries";
// `created_at <= @at AND …`: the same rows, said so that the index reads a range from the anchor.
const beforeKey = (order: number) =>
  `created_at <= @at AND (created_at < @at OR (created_at = @at AND (${order} < @kindOrder OR (${order} = @kindOrder AND id < @id))))`;
const afterKey = (order: number) =>
  `created_at >= @at AND (created_at > @at OR (created_at = @at AND (${order} > @kindOrder OR (${order} = @kindOrder AND id > @id))))`;
const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC LIMIT @limit';

type Row = {
  kind: TimelineItem['kind'];
  kind_order: number;
  id: number;
  type: string;
  title: string;
  session_id: string;
  project: string | null;
  created_at: number;
  origin: string | null;
};
type Key = { at: number; kindOrder: number; id: number };
const OLDEST_FIRST = 'ORDER BY created_at, id LIMIT @limit';

export function createTimeline(db: Database.Database) {
  const observation = db.prepare(
    "SELECT 'observation' AS kind, 0 AS kind_order, id, type, title, session_id, project, created_at, origin FROM observations WHERE id = ?",
  );
  const sessionItems = db.prepare(
    `SELECT * FROM (${OBSERVATION} UNION ALL ${SUMMARY}) WHERE session_id = ? ORDER BY created_at DESC, kind_order DESC, id DESC LIMIT ${MAX_SESSION_ITEMS}`,
  );
  // Per kind: [observations, summaries].
  const both = (make: (select: string, order: number) => string) => [db.prepare(make(OBSERVATION, 0)), db.prepare(make(SUMMARY, 1))] as const;
  const earlier = both((q, k) => `${q} WHERE project IS @project AND ${beforeKey(k)} ${NEWEST_FIRST}`);
  const later = both((q, k) => `${q} WHERE project IS @project AND ${afterKey(k)} ${OLDEST_FIRST}`);
  const earlierOther = both((q, k) => `${q} WHERE project IS @project AND session_id <> @session AND ${beforeKey(k)} ${NEWEST_FIRST}`);
  const laterOther = both((q, k) => `${q} WHERE project IS @project AND session_id <> @session AND ${afterKey(k)} ${OLDEST_FIRST}`);
  const recentAll = both((q) => `${q} ${NEWEST_FIRST}`);
  const recentOf = both((q) => `${q} WHERE project = @project ${NEWEST_FIRST}`);
  /** The first `limit` of both kinds' reads, merged in the timeline's order (newest first, or oldest first). */
  const merged = (pair: readonly [Database.Statement, Database.Statement], params: Record<string, unknown>, newestFirst: boolean): Row[] => {
    const limit = params.limit as number;
    const rows = [...(pair[0].all(params) as Row[]), ...(pair[1].all(params) as Row[])];
    const sign = newestFirst ? -1 : 1;
    return rows.sort((a, b) => sign * (a.created_at - b.created_at || a.kind_order - b.kind_order || a.id - b.id)).slice(0, limit);
  };
  const clamp = (n: number | undefined) => Math.min(Math.max(0, n ?? DEFAULT_NEIGHBOURS), MAX_NEIGHBOURS);

  return {
    /** Null when the observation or session is not in the store. */
    timeline(request: TimelineRequest): Timeline | null {
      const before = clamp(request.before);
      const after = clamp(request.after);
      const { anchor } = request;
      if ('recent' in anchor) {
        const project = anchor.project ?? null;
        const rows = merged(project === null ? recentAll : recentOf, { project, limit: Math.max(1, before) }, true);
        return { items: rows.reverse().map(toItem), focus: [] };
      }
      if ('observationId' in anchor) {
        const self = observation.get(anchor.observationId) as Row | undefined;
        if (!self) return null;
        const older = merged(earlier, { project: self.project, ...keyOf(self), limit: before }, true);
        const newer = merged(later, { project: self.project, ...keyOf(self), limit: after }, false);
        return { items: [...older.reverse(), self, ...newer].map(toItem), focus: [{ kind: 'observation', id: self.id }] };
      }
      const own = (sessionItems.all(anchor.sessionId) as Row[]).reverse();
      if (own.length === 0) return null;
      const first = own[0]!;
      const last = own[own.length - 1]!;
      const project = first.project;
      const older = merged(earlierOther, { project, session: anchor.sessionId, ...keyOf(first), limit: before }, true);
      const newer = merged(laterOther, { project, session: anchor.sessionId, ...keyOf(last), limit: after }, false);
      return { items: [...older.reverse(), ...own, ...newer].map(toItem), focus: own.map((r) => ({ kind: r.kind, id: r.id })) };
    },
  };
}

const keyOf = (r: Row): Key => ({ at: r.created_at, kindOrder: r.kind_order, id: r.id });

function toItem(r: Row): TimelineItem {
  return {
    kind: r.kind,
    id: r.id,
    type: r.type as TimelineItem['type'],
    title: r.title,
    session_id: r.session_id,
    project: r.project,
    created_at: new Date(r.created_at).toISOString(),
    origin: r.origin ?? null,
  };
}
