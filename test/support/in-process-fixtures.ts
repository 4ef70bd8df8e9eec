/**
 * The real OpenCode and pi event streams in test/fixtures/hosts/{opencode,pi}/captured (see its
 * README), and drivers that replay them into memtrace's plugin and extension the way each host
 * calls them: OpenCode awaits each hook in turn, pi awaits each handler.
 */
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIO } from './cli-io.js';
import { dataDirReport } from './data-dir-report.js';
import { waitFor } from './wait-for.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/hosts');

export interface Captured {
  /** `event.session.created`, `tool.execute.after`, `dispose`, … (OpenCode); `tool_result`, … (pi). */
  name: string;
  data: any;
}

export function capturedStream(host: 'opencode' | 'pi'): Captured[] {
  const dir = path.join(FIXTURES, host, 'captured');
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d{3}-.+\.json$/.test(name))
    .sort()
    .map((name) => ({ name: name.slice(4, -5), data: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) }));
}

export function capturedFile(host: 'opencode' | 'pi', name: string): string {
  return path.join(FIXTURES, host, 'captured', name);
}

/** The JSON-lines rows of a captured file. */
export function capturedRows(host: 'opencode' | 'pi', name: string): any[] {
  return fs
    .readFileSync(capturedFile(host, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Calls the plugin's hooks as OpenCode did in the captured run, one after the other. */
export async function replayOpenCode(plugin: object, stream: Captured[] = capturedStream('opencode')): Promise<void> {
  const hooks = plugin as Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;
  for (const { name, data } of stream) {
    if (name === 'init') continue;
    if (name.startsWith('event.')) await hooks.event?.({ event: data });
    else if (name === 'dispose') await hooks.dispose?.();
    else await hooks[name]?.(data.input, data.output);
  }
}

/** A stand-in for pi's ExtensionAPI: the handlers and tools an extension registers, and a way to fire events at it. */
export function fakePi() {
  const handlers = new Map<string, Array<(event: any, ctx: any) => unknown>>();
  const tools: any[] = [];
  return {
    api: {
      on(event: string, handler: (event: any, ctx: any) => unknown) {
        handlers.set(event, [...(handlers.get(event) ?? []), handler]);
      },
      registerTool(tool: any) {
        tools.push(tool);
      },
    },
    tools,
    /** Fires one event as pi does (awaiting each handler); returns the handlers' results. */
    async fire(event: any, facts: { cwd?: string; sessionId?: string; sessionFile?: string; model?: string }): Promise<unknown[]> {
      const [provider, id] = (facts.model ?? 'fake/fake-model').split('/');
      const ctx = {
        cwd: facts.cwd,
        hasUI: false,
        model: { provider, id },
        sessionManager: { getSessionId: () => facts.sessionId, getSessionFile: () => facts.sessionFile },
      };
      const results: unknown[] = [];
      for (const handler of handlers.get(event.type) ?? []) results.push(await handler(event, ctx));
      return results;
    },
  };
}

/** Fires every captured pi event (and the `session_shutdown` at the end) at an extension. */
export async function replayPi(pi: ReturnType<typeof fakePi>, stream: Captured[] = capturedStream('pi')): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const { name, data } of stream) {
    if (name === 'factory') continue;
    results.push(...(await pi.fire({ ...data.event, type: data.event.type ?? name }, data.ctx)));
  }
  return results;
}

/** `memtrace show --session <id> --json` on a data dir, parsed; null when the session is not stored (yet). */
export async function storedSession(dataDir: string, sessionId: string): Promise<any | null> {
  const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, HOME: path.dirname(dataDir) } });
  if ((await main(['show', '--session', sessionId, '--json'], c.io)) !== 0) return null;
  return JSON.parse(c.stdout());
}

/** Whether the session is stored, ended, with this many tool events (for waiting on: it asserts nothing). */
async function storedAndEnded(dataDir: string, sessionId: string, tools: number): Promise<boolean> {
  const shown = await storedSession(dataDir, sessionId);
  return shown?.session.status === 'ended' && shown.tool_events.length === tools;
}

/**
 * Waits for the worker a hook started with no worker running, then for it to have replayed the
 * spooled session (stored, ended, with this many tool events); a timeout says what the data dir holds.
 */
export async function workerReplayed(dataDir: string, sessionId: string, tools: number): Promise<void> {
  await waitFor(
    () => fs.existsSync(path.join(dataDir, 'worker.json')),
    60_000,
    () => dataDirReport(dataDir),
  );
  await waitFor(
    () => storedAndEnded(dataDir, sessionId, tools),
    60_000,
    () => dataDirReport(dataDir),
  );
}
