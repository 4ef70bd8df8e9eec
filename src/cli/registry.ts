import type { Command } from './command.js';

/** Commands load lazily so a hook call does not pay for the worker's imports. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  demo: { summary: 'the end-to-end demo on embedded defaults (SQLite, replay provider)', load: async () => (await import('./commands/demo.js')).demoCommand },
  worker: {
    summary: 'run the worker (foreground), or start|stop|status it in the background',
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
  telemetry: { summary: 'status, enable, disable, preview, flush, schema', load: async () => (await import('./commands/telemetry.js')).telemetryCommand },
  install: {
    summary: "write memtrace's hooks (and MCP server) into Claude Code's, Gemini CLI's or Codex's config (backup, idempotent)",
    load: async () => (await import('./commands/install.js')).installCommand,
  },
  uninstall: {
    summary: 'remove exactly the hooks (and MCP server) memtrace install wrote',
    load: async () => (await import('./commands/install.js')).uninstallCommand,
  },
  hook: {
    summary: "forward an agent's hook event (Claude Code, Gemini CLI, Codex) to the worker",
    load: async () => (await import('./commands/hook.js')).hookCommand,
  },
  collector: {
    summary: 'local PostHog-compatible capture endpoint + fleet dashboard',
    load: async () => (await import('./commands/collector.js')).collectorCommand,
  },
  dashboards: { summary: 'dashboards as code: export, push, report, review', load: async () => (await import('./commands/dashboards.js')).dashboardsCommand },
  repair: {
    summary: 'find and re-summarize fallback summaries (memtrace or a lossless-claw database)',
    load: async () => (await import('./commands/repair.js')).repairCommand,
  },
  mine: {
    summary: 'mine agent transcripts once (Claude Code, Gemini CLI, Codex; --host, --dir)',
    load: async () => (await import('./commands/mine.js')).mineCommand,
  },
  show: {
    summary: "an observation (or a session's memory) with its provenance and claim checks",
    load: async () => (await import('./commands/show.js')).showCommand,
  },
  parse: { summary: 'read one observer output on stdin, print the decision as JSON', load: async () => (await import('./commands/parse.js')).parseCommand },
  search: {
    summary: 'ranked full-text search over observations and session summaries',
    load: async () => (await import('./commands/search.js')).searchCommand,
  },
  mcp: { summary: 'a stdio MCP server with the tools search, timeline, get_observations', load: async () => (await import('./commands/mcp.js')).mcpCommand },
  viewer: {
    summary: 'a local read-only memory viewer page (sessions, timeline, search, provenance)',
    load: async () => (await import('./commands/viewer.js')).viewerCommand,
  },
  export: {
    summary: 'the memory as portable files: jsonl (round-trips through import) or markdown',
    load: async () => (await import('./commands/export.js')).exportCommand,
  },
  import: {
    summary: 'read a jsonl export back in (ids kept; existing ids skipped; bad lines counted)',
    load: async () => (await import('./commands/import.js')).importCommand,
  },
  doctor: {
    summary: 'check the install, worker, hooks, store, observer, budget and telemetry; name each fix',
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
  forget: {
    summary: 'remove memory everywhere it lives (tables, search index, context, raw events)',
    load: async () => (await import('./commands/forget.js')).forgetCommand,
  },
  share: {
    summary: "share a repository's memory with your machines and team through Postgres (add, list, sync, remove)",
    load: async () => (await import('./commands/share.js')).shareCommand,
  },
};

export const COMMAND_SUMMARIES: Array<[string, string]> = Object.entries(COMMANDS).map(([name, c]) => [name, c.summary]);

export async function loadCommand(name: string): Promise<Command | undefined> {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  return entry ? entry.load() : undefined;
}
