/**
 * The Claude Code plugin memtrace ships: `.claude-plugin/plugin.json` (with the MCP server) and
 * `hooks/hooks.json`, rendered from package.json's facts and the one hook and server definitions.
 * `scripts/generate-plugin.ts` writes them; a test fails when the committed files drift. Pure.
 *
 * The MCP server sits in the manifest's `mcpServers`, not in a `.mcp.json` at the plugin root: the
 * plugin root is also the repository root, where Claude Code would read a `.mcp.json` as the
 * memtrace checkout's own project servers (with `${CLAUDE_PLUGIN_ROOT}` unset there).
 */
import { memtraceHooks, PLUGIN_FORWARDER } from './hook-definitions.js';
import { MCP_SERVER_KEY, PLUGIN_MCP_ENTRY } from './mcp-definition.js';

export interface PackageFacts {
  name: string;
  version: string;
  description: string;
  license: string;
}

export const PLUGIN_MANIFEST_PATH = '.claude-plugin/plugin.json';
export const PLUGIN_HOOKS_PATH = 'hooks/hooks.json';
export const REGENERATE_PLUGIN_COMMAND = 'npx tsx scripts/generate-plugin.ts';

const KEYWORDS = ['memory', 'context', 'hooks', 'session-start', 'mcp', 'search', 'observability', 'telemetry', 'sqlite'];

function pluginManifest(pkg: PackageFacts): Record<string, unknown> {
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    author: { name: 'memtrace contributors' },
    license: pkg.license,
    keywords: KEYWORDS,
    mcpServers: { [MCP_SERVER_KEY]: { command: PLUGIN_MCP_ENTRY.command, args: [...PLUGIN_MCP_ENTRY.args], env: { ...PLUGIN_MCP_ENTRY.env } } },
  };
}

function pluginHooksFile(): Record<string, unknown> {
  return {
    description: 'memtrace: injects remembered context at session start; records prompts and tool use in the background, without blocking the agent.',
    hooks: memtraceHooks(PLUGIN_FORWARDER, 'plugin'),
  };
}

/** Path (relative to the package root) → file content, 2-space JSON with a final newline. */
export function renderPluginFiles(pkg: PackageFacts): Record<string, string> {
  const render = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return { [PLUGIN_MANIFEST_PATH]: render(pluginManifest(pkg)), [PLUGIN_HOOKS_PATH]: render(pluginHooksFile()) };
}

/** The fields the manifest takes from package.json, checked (a missing one is a build mistake). */
export function packageFacts(pkg: unknown): PackageFacts {
  const p = (pkg ?? {}) as Record<string, unknown>;
  const field = (key: keyof PackageFacts): string => {
    const value = p[key];
    if (typeof value !== 'string' || value === '') throw new Error(`package.json has no "${key}"`);
    return value;
  };
  return { name: field('name'), version: field('version'), description: field('description'), license: field('license') };
}
