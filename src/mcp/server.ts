import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import {
  createMemorySearch,
  createTimeline,
  EmptyQueryError,
  DEFAULT_SEARCH_LIMIT,
  MAX_NEIGHBOURS,
  resolveProjectArgument,
  type MemoryAccessSink,
} from '../memory/index.js';
import { OBSERVATION_TYPES } from '../vocabulary/observation.js';
import type { Store } from '../store/index.js';
import { APP_VERSION } from '../version.js';
import { observationsText, searchText, timelineText } from './tool-text.js';

/** The server name hosts register; Claude Code shows its tools as `mcp__memtrace__<tool>`. */
const MCP_SERVER_NAME = 'memtrace';
/** How many observations one get_observations call may open. */
const MAX_FETCH = 50;
const MAX_MCP_SEARCH_LIMIT = 100;

/**
 * The store and the access counts come through a function: an agent host waits for its MCP
 * servers to answer `initialize` before the session's first request, so the server answers that
 * before it opens the database (on the first tool call).
 */
export interface McpDeps {
  memory(): { store: Store; access: MemoryAccessSink };
  clock: Clock;
}

/*
 * The worker serves an MCP session for every agent session on one process: what is the same for
 * every session is built once. The tools' input schemas are built here, not per session.
 */
const SEARCH_INPUT = {
  query: z.string().describe('what you want to find, in plain words'),
  limit: z.number().int().min(1).max(MAX_MCP_SEARCH_LIMIT).optional().describe(`how many results (default ${DEFAULT_SEARCH_LIMIT})`),
  project: z.string().optional().describe("only this project's memory (its absolute path: any checkout of the repository, a worktree's too)"),
  type: z
    .enum([...OBSERVATION_TYPES, 'summary'])
    .optional()
    .describe('only observations of this type, or session summaries'),
};
const TIMELINE_INPUT = {
  observation_id: z.number().int().min(1).optional().describe('an observation id from search'),
  session_id: z.string().min(1).optional().describe('a session id'),
  before: z.number().int().min(0).max(MAX_NEIGHBOURS).optional().describe('how many earlier items (default 5)'),
  after: z.number().int().min(0).max(MAX_NEIGHBOURS).optional().describe('how many later items (default 5)'),
};
const FETCH_INPUT = { ids: z.array(z.number().int().min(1)).min(1).max(MAX_FETCH).describe(`observation ids, at most ${MAX_FETCH}`) };

/**
 * The SDK checks elicitation answers with a JSON Schema validator, and builds a new Ajv (about
 * 0.7 ms and much garbage) for every server unless it is given one. memtrace never elicits; one
 * validator serves every session of the process.
 */
let sharedValidator: AjvJsonSchemaValidator | null = null;

const text = (t: string, isError = false) => ({ content: [{ type: 'text' as const, text: t }], ...(isError ? { isError: true } : {}) });

/**
 * memtrace's memory as MCP tools: a thin face over src/memory. The index → timeline → details
 * pattern keeps an agent's tokens for what it opens: `search` and `timeline` answer ids and
 * titles, `get_observations` the full narrative and facts. Read-only.
 */
export function createMemtraceMcpServer(deps: McpDeps): McpServer {
  let opened: { store: Store; access: MemoryAccessSink; search: ReturnType<typeof createMemorySearch>; timeline: ReturnType<typeof createTimeline> } | null =
    null;
  const memory = () => {
    if (!opened) {
      const { store, access } = deps.memory();
      opened = { store, access, search: createMemorySearch(store.db), timeline: createTimeline(store.db) };
    }
    return opened;
  };
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer({ name: MCP_SERVER_NAME, version: APP_VERSION }, { jsonSchemaValidator: sharedValidator });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'search',
    {
      title: 'Search memory',
      description:
        "Search memtrace's memory of past sessions (observations and session summaries) with your own words. Returns ids, types, dates, titles and a snippet, best first; open the ones you need with get_observations.",
      inputSchema: SEARCH_INPUT,
      annotations: readOnly,
    },
    async ({ query, limit, project, type }) => {
      const started = performance.now();
      try {
        const { search, access, store } = memory();
        const hits = search.search(query, {
          limit: limit ?? DEFAULT_SEARCH_LIMIT,
          project: project ? resolveProjectArgument(store.db, project) : null,
          type: type ?? null,
        });
        access.record('mcp', { kind: 'search', durationMs: performance.now() - started, results: hits.length }, deps.clock.now());
        return text(searchText(query, hits));
      } catch (error) {
        if (error instanceof EmptyQueryError) return text(`Cannot search: ${error.message}.`, true);
        throw error;
      }
    },
  );

  server.registerTool(
    'timeline',
    {
      title: 'Memory timeline',
      description:
        'What happened around an observation (its neighbours in time in the same project) or during a session, oldest first, as ids and titles. With neither, the most recent memory.',
      inputSchema: TIMELINE_INPUT,
      annotations: readOnly,
    },
    async ({ observation_id, session_id, before, after }) => {
      if (observation_id !== undefined && session_id !== undefined) return text('Give observation_id or session_id, not both.', true);
      const anchor =
        observation_id !== undefined ? { observationId: observation_id } : session_id !== undefined ? { sessionId: session_id } : { recent: true as const };
      const { timeline, access } = memory();
      const started = performance.now();
      const result = timeline.timeline({ anchor, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
      if (!result) return text(observation_id !== undefined ? `No observation #${observation_id} in memory.` : `No memory of session ${session_id}.`, true);
      access.record('mcp', { kind: 'timeline', durationMs: performance.now() - started }, deps.clock.now());
      return text(timelineText(result));
    },
  );

  server.registerTool(
    'get_observations',
    {
      title: 'Open observations',
      description: 'The full observations for these ids (from search or timeline): narrative, facts, concepts, files, session and date.',
      inputSchema: FETCH_INPUT,
      annotations: readOnly,
    },
    async ({ ids }) => {
      const unique = [...new Set(ids)];
      const { store, access } = memory();
      const started = performance.now();
      const found = unique.map((id) => store.observations.get(id)).filter((o) => o !== null);
      const missing = unique.filter((id) => !found.some((o) => o.id === id));
      access.record(
        'mcp',
        { kind: 'fetch', observations: found.length, durationMs: performance.now() - started, ...(found.length === 1 ? { id: String(found[0]!.id) } : {}) },
        deps.clock.now(),
      );
      return text(observationsText(found, missing), found.length === 0);
    },
  );

  return server;
}
