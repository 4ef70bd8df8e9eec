/**
 * The one file `memtrace install --host opencode|pi` writes into the host's config: memtrace's
 * OpenCode plugin (`plugins/memtrace.js`) or pi extension (`extensions/memtrace.js`). It is the
 * bundle the build makes of src/install/in-process/ (`dist/in-process/*.js`, an IIFE that
 * imports nothing), the settings install pins (where memtrace is, the data dir when it was set),
 * and the export the host loads. Pure: the bundle's text comes in as a value. A file that does
 * not start with memtrace's first line was not written by install and is never replaced or
 * removed.
 *
 * pi's extension is plain CommonJS JavaScript, not TypeScript: pi loads extensions with jiti, which
 * runs every `.ts` file (and every ES module) through Babel first. Measured cold (jiti's cache
 * empty, as after a reboot): 650–700 ms of CPU for this extension as `.ts`, 190–270 ms for a
 * one-line `.ts`, 27–32 ms as CommonJS `.js`, which jiti evaluates as it is.
 */
import path from 'node:path';
import type { InstalledSettings } from './in-process/settings.js';
import type { MemoryToolSpec } from './in-process/pi-extension.js';

/** The hosts memtrace joins in-process (a plugin, an extension) instead of through command hooks. */
export const IN_PROCESS_HOSTS = ['opencode', 'pi'] as const;
export type InProcessHost = (typeof IN_PROCESS_HOSTS)[number];

export function isInProcessHost(host: string): host is InProcessHost {
  return (IN_PROCESS_HOSTS as readonly string[]).includes(host);
}

/** The bundle each host's file is made from, relative to the package root. */
export const IN_PROCESS_BUNDLES: Readonly<Record<InProcessHost, string>> = {
  opencode: path.join('dist', 'in-process', 'opencode-plugin.js'),
  pi: path.join('dist', 'in-process', 'pi-extension.js'),
};

const FIRST_LINE: Readonly<Record<InProcessHost, string>> = {
  opencode: "// memtrace's OpenCode plugin: written by `memtrace install --host opencode`, removed by `memtrace uninstall --host opencode`.",
  pi: "// memtrace's pi extension: written by `memtrace install --host pi`, removed by `memtrace uninstall --host pi`.",
};

/** Whether a file's text is one memtrace install wrote (any version). */
export function isMemtraceInProcessFile(host: InProcessHost, text: string): boolean {
  return text.startsWith(`${FIRST_LINE[host]}\n`);
}

/** What install pinned in a file of memtrace's (`memtrace doctor` reads it); null when the line is not there or not whole. */
export function installedSettingsOf(host: InProcessHost, text: string): InstalledSettings | null {
  if (!isMemtraceInProcessFile(host, text)) return null;
  const line = /^const MEMTRACE_SETTINGS = (.*);$/m.exec(text)?.[1];
  if (line === undefined) return null;
  try {
    const value = JSON.parse(line) as Partial<InstalledSettings> | null;
    return typeof value?.memtraceBin === 'string' && typeof value.version === 'string' ? (value as InstalledSettings) : null;
  } catch {
    return null;
  }
}

export function inProcessFileText(host: InProcessHost, bundle: string, settings: InstalledSettings, tools: readonly MemoryToolSpec[] = []): string {
  const exported =
    host === 'opencode'
      ? 'export const MemtracePlugin = async (input) => __memtrace.openCodePlugin(MEMTRACE_SETTINGS, input);'
      : 'module.exports = function memtrace(pi) {\n  __memtrace.piExtension(MEMTRACE_SETTINGS, MEMTRACE_TOOLS, pi);\n};';
  return [
    FIRST_LINE[host],
    `// memtrace ${settings.version}. Edits are lost at the next install; it imports nothing (Node's built-ins come from`,
    '// process.getBuiltinModule) and talks to the worker over the data dir\u2019s socket.',
    `const MEMTRACE_SETTINGS = ${JSON.stringify(settings)};`,
    ...(host === 'pi' ? [`const MEMTRACE_TOOLS = ${JSON.stringify(tools)};`] : []),
    bundle.trimEnd(),
    exported,
    '',
  ].join('\n');
}
