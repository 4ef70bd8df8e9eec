import type { Migration } from '../migrate.js';

/**
 * Subagents named (docs/memory.md#subagents): a tool event keeps the subagent that made it
 * (Claude Code's `agent_id` and `agent_type`), and so does an observation made from a subagent's
 * events, so context injection can keep them from crowding out the main agent's memory. The two
 * partial indexes let context read each side's newest observations of a project on its own.
 */
export const SUBAGENTS_SCHEMA: Migration = {
  id: '0902_subagents',
  up(db) {
    db.exec(`
      ALTER TABLE tool_events ADD COLUMN agent_id TEXT;
      ALTER TABLE tool_events ADD COLUMN agent_type TEXT;
      ALTER TABLE observations ADD COLUMN agent_id TEXT;
      ALTER TABLE observations ADD COLUMN agent_type TEXT;
      CREATE INDEX observations_main_recent ON observations (project, created_at DESC, id DESC) WHERE agent_id IS NULL;
      CREATE INDEX observations_subagent_recent ON observations (project, created_at DESC, id DESC) WHERE agent_id IS NOT NULL;
    `);
  },
};
