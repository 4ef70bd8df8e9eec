/**
 * A claude-mem database as its worker leaves it (`~/.claude-mem/claude-mem.db`), built from its
 * public schema (thedotmack/claude-mem, src/services/sqlite/schema.sql, migration 35): sessions,
 * observations with their JSON-as-text lists, session summaries, prompts, the pending queue and
 * the FTS5 index its triggers keep. Only facts of the schema are used; the rows are ours.
 */
import Database from 'better-sqlite3';

const PEER_SCHEMA = `
CREATE TABLE schema_versions (id INTEGER PRIMARY KEY, version INTEGER UNIQUE NOT NULL, applied_at TEXT NOT NULL);
CREATE TABLE sdk_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, content_session_id TEXT UNIQUE NOT NULL, memory_session_id TEXT UNIQUE, project TEXT NOT NULL,
  platform_source TEXT NOT NULL DEFAULT 'claude', user_prompt TEXT, started_at TEXT NOT NULL, started_at_epoch INTEGER NOT NULL,
  completed_at TEXT, completed_at_epoch INTEGER, status TEXT NOT NULL DEFAULT 'active' CHECK(status IN ('active', 'completed', 'failed')),
  worker_port INTEGER, prompt_counter INTEGER DEFAULT 0, custom_title TEXT);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, memory_session_id TEXT NOT NULL, project TEXT NOT NULL, text TEXT, type TEXT NOT NULL,
  title TEXT, subtitle TEXT, facts TEXT, narrative TEXT, concepts TEXT, files_read TEXT, files_modified TEXT, prompt_number INTEGER,
  discovery_tokens INTEGER DEFAULT 0, content_hash TEXT, agent_type TEXT, agent_id TEXT, merged_into_project TEXT, generated_by_model TEXT,
  metadata TEXT, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL,
  FOREIGN KEY(memory_session_id) REFERENCES sdk_sessions(memory_session_id) ON DELETE CASCADE ON UPDATE CASCADE,
  UNIQUE(memory_session_id, content_hash));
CREATE INDEX idx_observations_project ON observations(project);
CREATE INDEX idx_observations_created ON observations(created_at_epoch DESC);
CREATE TABLE session_summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, memory_session_id TEXT NOT NULL, project TEXT NOT NULL, request TEXT, investigated TEXT,
  learned TEXT, completed TEXT, next_steps TEXT, files_read TEXT, files_edited TEXT, notes TEXT, prompt_number INTEGER,
  discovery_tokens INTEGER DEFAULT 0, merged_into_project TEXT, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL,
  FOREIGN KEY(memory_session_id) REFERENCES sdk_sessions(memory_session_id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE pending_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_db_id INTEGER NOT NULL, content_session_id TEXT NOT NULL, tool_use_id TEXT,
  message_type TEXT NOT NULL CHECK(message_type IN ('observation', 'summarize')), tool_name TEXT, tool_input TEXT, tool_response TEXT,
  cwd TEXT, last_user_message TEXT, last_assistant_message TEXT, prompt_number INTEGER,
  status TEXT NOT NULL DEFAULT 'pending' CHECK(status IN ('pending', 'processing')), created_at_epoch INTEGER NOT NULL, agent_type TEXT, agent_id TEXT,
  FOREIGN KEY (session_db_id) REFERENCES sdk_sessions(id) ON DELETE CASCADE);
CREATE TABLE user_prompts (
  id INTEGER PRIMARY KEY AUTOINCREMENT, content_session_id TEXT NOT NULL, prompt_number INTEGER NOT NULL, prompt_text TEXT NOT NULL,
  created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL,
  FOREIGN KEY(content_session_id) REFERENCES sdk_sessions(content_session_id) ON DELETE CASCADE);
CREATE VIRTUAL TABLE observations_fts USING fts5(title, subtitle, narrative, text, facts, concepts, content='observations', content_rowid='id');
CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
  INSERT INTO observations_fts(rowid, title, subtitle, narrative, text, facts, concepts) VALUES (new.id, new.title, new.subtitle, new.narrative, new.text, new.facts, new.concepts);
END;
`;

export interface PeerObservation {
  session: string;
  project: string;
  type: string;
  title?: string | null;
  subtitle?: string | null;
  narrative?: string | null;
  text?: string | null;
  facts?: string[] | string | null;
  concepts?: string[] | null;
  files_read?: string[] | null;
  files_modified?: string[] | null;
  at: number;
  agent_type?: string | null;
  agent_id?: string | null;
}

export interface PeerSummary {
  session: string;
  project: string;
  request?: string | null;
  investigated?: string | null;
  learned?: string | null;
  completed?: string | null;
  next_steps?: string | null;
  notes?: string | null;
  at: number;
}

const list = (v: string[] | string | null | undefined) => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** Writes the peer's database (WAL, as its worker runs it) and returns it open, for more rows. */
export function createPeerDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(PEER_SCHEMA);
  db.prepare("INSERT INTO schema_versions (version, applied_at) VALUES (35, '2026-01-01T00:00:00.000Z')").run();
  return db;
}

export function addPeerSession(db: Database.Database, s: { memory: string; content: string; project: string; prompt?: string; at: number }): void {
  db.prepare(
    "INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status) VALUES (?, ?, ?, ?, ?, ?, 'completed')",
  ).run(s.content, s.memory, s.project, s.prompt ?? null, new Date(s.at).toISOString(), s.at);
}

export function addPeerObservation(db: Database.Database, o: PeerObservation): number {
  return Number(
    db
      .prepare(`INSERT INTO observations (memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts, files_read, files_modified,
        prompt_number, discovery_tokens, agent_type, agent_id, created_at, created_at_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1200, ?, ?, ?, ?)`)
      .run(
        o.session,
        o.project,
        o.text ?? null,
        o.type,
        o.title ?? null,
        o.subtitle ?? null,
        list(o.facts),
        o.narrative ?? null,
        list(o.concepts),
        list(o.files_read),
        list(o.files_modified),
        o.agent_type ?? null,
        o.agent_id ?? null,
        new Date(o.at).toISOString(),
        o.at,
      ).lastInsertRowid,
  );
}

export function addPeerSummary(db: Database.Database, s: PeerSummary): number {
  return Number(
    db
      .prepare(`INSERT INTO session_summaries (memory_session_id, project, request, investigated, learned, completed, next_steps, notes, created_at, created_at_epoch)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        s.session,
        s.project,
        s.request ?? null,
        s.investigated ?? null,
        s.learned ?? null,
        s.completed ?? null,
        s.next_steps ?? null,
        s.notes ?? null,
        new Date(s.at).toISOString(),
        s.at,
      ).lastInsertRowid,
  );
}

const TYPES = ['discovery', 'bugfix', 'feature', 'change', 'decision', 'refactor'] as const;
const WORDS = (
  'cache checkout coupon login redirect session cookie token webhook retry refund invoice tax discount cart worker queue index migration ' +
  'schema timeout socket parser config deploy build test flaky lock race memory leak latency endpoint router handler'
).split(' ');

/** A large peer database for the benchmark: `sessions` sessions of `perSession` observations each and one summary each, seeded. */
export function fillPeerDatabase(db: Database.Database, options: { observations: number; perSession?: number; startMs?: number }): { sessions: number } {
  const per = options.perSession ?? 40;
  const startMs = options.startMs ?? Date.UTC(2025, 0, 1);
  let state = 29;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const sentence = () => `${Array.from({ length: 8 + Math.floor(random() * 10) }, () => pick(WORDS)).join(' ')}.`.replace(/^./, (c) => c.toUpperCase());
  const sessions = Math.ceil(options.observations / per);
  db.transaction(() => {
    for (let s = 0; s < sessions; s += 1) {
      const memory = `mem-${s}`;
      const project = `project-${s % 9}`;
      const at = startMs + s * 3_600_000;
      addPeerSession(db, { memory, content: `00000000-0000-4000-8000-${String(s).padStart(12, '0')}`, project, prompt: sentence(), at });
      for (let i = 0; i < per && s * per + i < options.observations; i += 1) {
        addPeerObservation(db, {
          session: memory,
          project,
          type: random() < 0.02 ? 'email-investigation' : pick(TYPES),
          title: sentence().slice(0, 80),
          subtitle: sentence(),
          narrative: Array.from({ length: 3 + Math.floor(random() * 4) }, sentence).join(' '),
          facts: Array.from({ length: 1 + Math.floor(random() * 3) }, sentence),
          concepts: [pick(['how-it-works', 'gotcha', 'pattern', 'trade-off', 'problem-solution'])],
          files_read: [`src/${pick(WORDS)}/${pick(WORDS)}.ts`],
          files_modified: random() < 0.5 ? [`src/${pick(WORDS)}/${pick(WORDS)}.ts`] : [],
          at: at + i * 60_000,
        });
      }
      addPeerSummary(db, {
        session: memory,
        project,
        request: sentence(),
        investigated: sentence(),
        learned: sentence(),
        completed: sentence(),
        next_steps: sentence(),
        at: at + per * 60_000,
      });
    }
  })();
  return { sessions };
}
