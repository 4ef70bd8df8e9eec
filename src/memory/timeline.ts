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

const ITEMS = `
  SELECT 'observation' AS kind, 0 AS kind_order, id, type, title, session_id, project, created_at, origin FROM observations
  UNION ALL
  SELECT 'summary', 1, id, 'summary', request, session_id, project, created_at, origin FROM summaries`;

/** Items order by (created_at, observations before summaries, id); cursors compare on that key. */
const BEFORE = '(created_at < @at OR (created_at = @at AND (kind_order < @kindOrder OR (kind_order = @kindOrder AND id < @id))))';
const AFTER = '(created_at > @at OR (created_at = @at AND (kind_order > @kindOrder OR (kind_order = @kindOrder AND id > @id))))';

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

export function createTimeline(db: Database.Database) {
  const observation = db.prepare(
    "SELECT 'observation' AS kind, 0 AS kind_order, id, type, title, session_id, project, created_at, origin FROM observations WHERE id = ?",
  );
  const sessionItems = db.prepare(
    `SELECT * FROM (${ITEMS}) WHERE session_id = ? ORDER BY created_at DESC, kind_order DESC, id DESC LIMIT ${MAX_SESSION_ITEMS}`,
  );
  const earlier = db.prepare(
    `SELECT * FROM (${ITEMS}) WHERE project IS @project AND ${BEFORE} ORDER BY created_at DESC, kind_order DESC, id DESC LIMIT @limit`,
  );
  const later = db.prepare(`SELECT * FROM (${ITEMS}) WHERE project IS @project AND ${AFTER} ORDER BY created_at, kind_order, id LIMIT @limit`);
  const earlierOther = db.prepare(
    `SELECT * FROM (${ITEMS}) WHERE project IS @project AND session_id <> @session AND ${BEFORE} ORDER BY created_at DESC, kind_order DESC, id DESC LIMIT @limit`,
  );
  const laterOther = db.prepare(
    `SELECT * FROM (${ITEMS}) WHERE project IS @project AND session_id <> @session AND ${AFTER} ORDER BY created_at, kind_order, id LIMIT @limit`,
  );
  const recent = db.prepare(
    `SELECT * FROM (${ITEMS}) WHERE (@project IS NULL OR project = @project) ORDER BY created_at DESC, kind_order DESC, id DESC LIMIT @limit`,
  );
  const clamp = (n: number | undefined) => Math.min(Math.max(0, n ?? DEFAULT_NEIGHBOURS), MAX_NEIGHBOURS);

  return {
    /** Null when the observation or session is not in the store. */
    timeline(request: TimelineRequest): Timeline | null {
      const before = clamp(request.before);
      const after = clamp(request.after);
      const { anchor } = request;
      if ('recent' in anchor) {
        const rows = recent.all({ project: anchor.project ?? null, limit: Math.max(1, before) }) as Row[];
        return { items: rows.reverse().map(toItem), focus: [] };
      }
      if ('observationId' in anchor) {
        const self = observation.get(anchor.observationId) as Row | undefined;
        if (!self) return null;
        const older = earlier.all({ project: self.project, ...keyOf(self), limit: before }) as Row[];
        const newer = later.all({ project: self.project, ...keyOf(self), limit: after }) as Row[];
        return { items: [...older.reverse(), self, ...newer].map(toItem), focus: [{ kind: 'observation', id: self.id }] };
      }
      const own = (sessionItems.all(anchor.sessionId) as Row[]).reverse();
      if (own.length === 0) return null;
      const first = own[0]!;
      const last = own[own.length - 1]!;
      const project = first.project;
      const older = earlierOther.all({ project, session: anchor.sessionId, ...keyOf(first), limit: before }) as Row[];
      const newer = laterOther.all({ project, session: anchor.sessionId, ...keyOf(last), limit: after }) as Row[];
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
