import { builtins, type Builtins } from './builtins.js';
import { contextOf, withinBudget } from './session-context.js';
import { linkSettings, type InstalledSettings } from './settings.js';
import { createWorkerLink } from './worker-link.js';

/**
 * memtrace's OpenCode plugin (AGENT-HOSTS-2.md §2): OpenCode 1.18 runs it inside its own Bun
 * process and awaits every hook, so each one only filters, remembers and queues (worker-link.ts);
 * the host events the worker's adapter reads (src/hosts/opencode/adapter.ts) are forwarded as
 * OpenCode gave them. OpenCode has no hook for a failed tool, for the end of a turn or of a
 * session, so the plugin keeps a little state per session to derive them: a tool part whose
 * state turns `error` (no `tool.execute.after` comes for it), `session.idle` joined with the
 * last text the model completed, and `dispose` (the instance shutting down) for every session
 * still open. A session's first user message gets memtrace's context as a synthetic text part
 * (stored with the message, so later turns keep it), waited for at most the hook budget.
 */
interface OpenCodeInput {
  directory?: unknown;
}

type Hooks = Record<string, (...args: never[]) => Promise<void>>;

interface SessionState {
  /** The worker's reply to the session's start (its context), once asked for. */
  started: Promise<string> | null;
  contextGiven: boolean;
  lastText: string | null;
  /** Tool calls already forwarded (a part may be updated many times). */
  forwarded: Set<string>;
  ended: boolean;
}

const MAX_SESSIONS = 1_000;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function openCodePlugin(
  installed: InstalledSettings,
  input: OpenCodeInput,
  node: Builtins = builtins(),
  env: Record<string, string | undefined> = process.env,
  overrides: Parameters<typeof linkSettings>[3] = {},
): Hooks {
  const settings = linkSettings('opencode', installed, env, overrides);
  if (settings.disabled) return {};
  const link = createWorkerLink(settings, node);
  const directory = str(input.directory);
  const store = openCodeStore(node, env);
  const sessions = new Map<string, SessionState>();
  /** A subagent's child session → its parent (from `session.created`'s `info.parentID`). */
  const parents = new Map<string, string>();

  const stateOf = (id: string): SessionState => {
    let state = sessions.get(id);
    if (!state) {
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      state = { started: null, contextGiven: false, lastText: null, forwarded: new Set(), ended: false };
      sessions.set(id, state);
    }
    return state;
  };
  const common = (id: string) => {
    const parent = parents.get(id);
    const root = parent ?? id;
    return { directory, ...(store ? { transcript_path: `${store}#${root}` } : {}), ...(parent ? { parent_session_id: parent } : {}) };
  };
  const start = (id: string, event: unknown, source: 'startup' | 'resume') => {
    const state = stateOf(id);
    state.started ??= link.send('session.created', { event, ...common(id), source }, { cwd: directory });
    return state;
  };
  const forwardTool = (id: string, callID: string | null, name: string, payload: Record<string, unknown>) => {
    const state = stateOf(parents.get(id) ?? id);
    if (callID) {
      if (state.forwarded.has(callID)) return;
      state.forwarded.add(callID);
    }
    void link.send(name, { ...payload, ...common(id) });
  };
  const end = (id: string, reason: string) => {
    const state = sessions.get(id);
    if (!state || state.ended || parents.has(id)) return;
    state.ended = true;
    void link.send('dispose', { sessionID: id, reason, ...common(id) });
  };

  return {
    async event({ event }: { event: unknown }) {
      if (!isObject(event)) return;
      const properties = isObject(event.properties) ? event.properties : {};
      switch (event.type) {
        case 'session.created': {
          const info = isObject(properties.info) ? properties.info : {};
          const id = str(info.id) ?? str(properties.sessionID);
          if (!id) return;
          const parent = str(info.parentID);
          if (parent) parents.set(id, parents.get(parent) ?? parent);
          else start(id, event, 'startup');
          return;
        }
        case 'message.part.updated': {
          const part = isObject(properties.part) ? properties.part : {};
          const state = isObject(part.state) ? part.state : {};
          const id = str(part.sessionID) ?? str(properties.sessionID);
          // Only a tool that failed: OpenCode sends no tool.execute.after for it.
          if (!id || part.type !== 'tool' || state.status !== 'error') return;
          forwardTool(id, str(part.callID), 'message.part.updated', { event });
          return;
        }
        case 'session.idle': {
          const id = str(properties.sessionID);
          if (!id || parents.has(id)) return;
          const state = stateOf(id);
          const last = state.lastText;
          state.lastText = null;
          void link.send('session.idle', { event, ...common(id), last_assistant_message: last });
          return;
        }
        case 'session.deleted': {
          const info = isObject(properties.info) ? properties.info : {};
          const id = str(info.id) ?? str(properties.sessionID);
          if (id) end(id, 'deleted');
          return;
        }
        default:
          return;
      }
    },
    async 'chat.message'(hookInput: unknown, output: unknown) {
      const id = isObject(hookInput) ? str(hookInput.sessionID) : null;
      if (!id || !isObject(output) || parents.has(id)) return;
      // A session this instance did not see start (resumed, or continued in the TUI) starts here.
      const state = start(id, { type: 'session.created', properties: { sessionID: id } }, 'resume');
      void link.send('chat.message', { input: hookInput, output: { message: output.message, parts: output.parts }, ...common(id) });
      if (state.contextGiven) return;
      state.contextGiven = true;
      const context = contextOf(await withinBudget(state.started!, settings.budgetMs));
      const message = isObject(output.message) ? output.message : {};
      const messageID = str(message.id);
      if (!context || !messageID || !Array.isArray(output.parts)) return;
      output.parts.push({ id: ascendingPartId(), sessionID: id, messageID, type: 'text', synthetic: true, text: context });
    },
    async 'tool.execute.after'(hookInput: unknown, output: unknown) {
      if (!isObject(hookInput)) return;
      const id = str(hookInput.sessionID);
      if (!id) return;
      forwardTool(id, str(hookInput.callID), 'tool.execute.after', { input: hookInput, output });
    },
    async 'experimental.text.complete'(hookInput: unknown, output: unknown) {
      const id = isObject(hookInput) ? str(hookInput.sessionID) : null;
      const text = isObject(output) ? str(output.text) : null;
      if (id && text && !parents.has(id)) stateOf(id).lastText = text;
    },
    async dispose() {
      for (const id of sessions.keys()) end(id, 'dispose');
      await link.drain(settings.budgetMs);
    },
  };
}

/**
 * OpenCode's store, where the worker reads a session back (mining): OPENCODE_DB (`:memory:` keeps
 * none), else `opencode.db` in its data folder, else the newest `opencode-<channel>.db` there.
 */
function openCodeStore(node: Builtins, env: Record<string, string | undefined>): string | null {
  const dataDir = `${env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : `${env.HOME ?? ''}/.local/share`}/opencode`;
  const named = env.OPENCODE_DB?.trim();
  if (named === ':memory:') return null;
  if (named) return named.startsWith('/') ? named : `${dataDir}/${named}`;
  try {
    if (node.fs.existsSync(`${dataDir}/opencode.db`)) return `${dataDir}/opencode.db`;
    const channels = node.fs
      .readdirSync(dataDir)
      .filter((name) => /^opencode-[A-Za-z0-9._-]+\.db$/.test(name))
      .map((name) => ({ name, mtimeMs: node.fs.statSync(`${dataDir}/${name}`).mtimeMs }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    return channels[0] ? `${dataDir}/${channels[0].name}` : `${dataDir}/opencode.db`;
  } catch {
    return `${dataDir}/opencode.db`;
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let partCounter = 0;

/**
 * A part id of OpenCode's own shape (`prt_` + 12 hex digits of time×4096+counter + 14 base62
 * characters): a pushed part skips OpenCode's id assignment, and one that fails its schema is
 * dropped ("invalid user part before save"). Ascending, so it sorts after the user's own text.
 */
function ascendingPartId(): string {
  partCounter = (partCounter + 1) & 0xfff;
  const time = (BigInt(Date.now()) * 0x1000n + BigInt(partCounter)).toString(16).padStart(12, '0').slice(-12);
  let tail = '';
  for (let i = 0; i < 14; i += 1) tail += BASE62[Math.floor(Math.random() * 62)];
  return `prt_${time}${tail}`;
}
