import type { SessionRow, Store } from '../store/index.js';

/** The most recent sessions with how much memory each holds, newest first. */
export function recentSessions(store: Store, limit: number): Array<{ session: SessionRow; observations: number; summaries: number }> {
  const rows = store.db
    .prepare(
      `SELECT session_id, (SELECT count(*) FROM observations o WHERE o.session_id = s.session_id) AS observations,
         (SELECT count(*) FROM summaries m WHERE m.session_id = s.session_id) AS summaries
       FROM sessions s ORDER BY created_at DESC LIMIT ?`,
    )
    .all(limit) as Array<{ session_id: string; observations: number; summaries: number }>;
  return rows.flatMap((r) => {
    const session = store.sessions.get(r.session_id);
    return session ? [{ session, observations: r.observations, summaries: r.summaries }] : [];
  });
}
