import fs from 'node:fs';
import path from 'node:path';
import { hostMcpEntry } from '../../install/host-hooks.js';
import type { HostAction, HostEditResult } from '../../install/host-config-files.js';
import { inProcessConfigEdits, inProcessConfigPaths, type OpenCodeMcpEntry } from '../../install/in-process-config.js';
import { IN_PROCESS_BUNDLES, inProcessFileText, type InProcessHost } from '../../install/in-process-file.js';
import type { InstalledSettings } from '../../install/in-process/settings.js';
import { memoryToolSpecs } from '../../install/memory-tool-specs.js';
import { readFileSnapshot, SettingsFileError } from '../../install/settings-file.js';
import { APP_VERSION } from '../../version.js';

/**
 * What `memtrace install --host opencode|pi` would write, checked before anything is written:
 * the plugin (extension) file made from this package's bundle and where this memtrace is, and
 * for OpenCode its MCP server in opencode.json. For pi the memory tools are the MCP server's
 * own (src/install/memory-tool-specs.ts).
 */
export async function inProcessEdits(
  action: HostAction,
  host: InProcessHost,
  where: { projectDir: string | null; home: string; packageRoot: string; forwarder: string; env: Record<string, string | undefined> },
): Promise<{ result: HostEditResult; what: string } | { error: string }> {
  const paths = inProcessConfigPaths(host, { projectDir: where.projectDir, home: where.home, env: where.env, exists: fs.existsSync });
  let files: Parameters<typeof inProcessConfigEdits>[2];
  try {
    files = { plugin: readFileSnapshot(paths.pluginFile), mcp: paths.mcpFile ? readFileSnapshot(paths.mcpFile) : null };
  } catch (error) {
    if (error instanceof SettingsFileError) return { error: error.message };
    throw error;
  }
  let pluginText = '';
  if (action === 'install') {
    const bundle = path.join(where.packageRoot, IN_PROCESS_BUNDLES[host]);
    let code: string;
    try {
      code = fs.readFileSync(bundle, 'utf8');
    } catch {
      return { error: `memtrace's ${host === 'opencode' ? 'plugin' : 'extension'} ${bundle} is missing; reinstall memtrace (in a checkout: npm run build).` };
    }
    const dataDir = where.env.MEMTRACE_DATA_DIR?.trim();
    const settings: InstalledSettings = {
      memtraceBin: path.join(where.packageRoot, 'bin', 'memtrace.cjs'),
      node: process.execPath,
      ...(dataDir ? { dataDir: path.resolve(dataDir) } : {}),
      version: APP_VERSION,
    };
    pluginText = inProcessFileText(host, code, settings, host === 'pi' ? await memoryToolSpecs() : []);
  }
  const mcp = hostMcpEntry(process.execPath, where.forwarder, where.env);
  const openCodeMcp: OpenCodeMcpEntry = { type: 'local', command: [mcp.command, ...mcp.args], environment: mcp.env, enabled: true };
  return {
    result: inProcessConfigEdits(action, host, files, { pluginText, mcp: host === 'opencode' ? openCodeMcp : null }),
    what: host === 'opencode' ? "memtrace's plugin and MCP server" : "memtrace's extension (with its memory tools)",
  };
}

/**
 * The one step the user takes after install: starting the host (neither asks to trust these
 * files). OpenCode waits at every start with any plugin until its plugin package
 * (@opencode-ai/plugin) is installed in each of its config folders: once, with the network; with
 * none, about 75 s at every start (measured offline). Said when a folder does not have it yet.
 */
export function inProcessNextStep(host: InProcessHost, where: { projectDir: string | null; home: string; env: Record<string, string | undefined> }): string {
  if (host === 'pi')
    return "next: start pi; it loads the extension at startup (pi asks nothing first), records the session, and offers the model memtrace_search, memtrace_timeline and memtrace_get_observations. memtrace's worker starts with the first session.";
  const start = "next: start OpenCode (opencode, or opencode run); it loads the plugin at startup, and memtrace's worker starts with the first session.";
  const { pluginFile } = inProcessConfigPaths('opencode', { ...where, exists: fs.existsSync });
  const userDir = path.dirname(path.dirname(inProcessConfigPaths('opencode', { ...where, projectDir: null, exists: fs.existsSync }).pluginFile));
  const dirs = [...new Set([userDir, path.dirname(path.dirname(pluginFile))])];
  const missing = dirs.filter((dir) => !fs.existsSync(path.join(dir, 'node_modules', '@opencode-ai', 'plugin', 'package.json')));
  if (missing.length === 0) return start;
  return `${start} note: with a plugin, OpenCode first installs its plugin package (@opencode-ai/plugin) into ${missing.join(' and ')} and waits for it: this needs the network once (an npm install); with no network, every OpenCode start waits about 75 s for it.${where.projectDir !== null ? ' The user install (without --project) needs only the one folder.' : ''}`;
}
