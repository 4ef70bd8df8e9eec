import fs from 'node:fs';
import path from 'node:path';
import { runHookProcess, type HookRun } from './hook-process.js';

const HOOKS = path.resolve(import.meta.dirname, '../fixtures/claude-code/hooks');
const FIXTURE_SESSION = '11111111-2222-4333-8444-555555555555';

/** A recorded Claude Code hook payload, made this session's, in this directory, with its own tool id. */
export function hookPayload(file: string, sessionId: string, cwd: string, toolUseId?: string): Buffer {
  let text = fs.readFileSync(path.join(HOOKS, file), 'utf8').replaceAll(FIXTURE_SESSION, sessionId).replaceAll('/home/user/project', cwd);
  if (toolUseId) text = text.replace(/"tool_use_id": "[^"]*"/, `"tool_use_id": "${toolUseId}"`);
  return Buffer.from(text);
}

/** One hook firing through an install's forwarder (`sh <bin>/memtrace-hook …`), as `memtrace install` writes it. */
export function fireHook(bin: string, event: string, payload: Buffer, options: { env: Record<string, string>; cwd: string }): Promise<HookRun> {
  return runHookProcess(['sh', path.join(bin, 'memtrace-hook'), 'claude-code', event, 'settings', process.execPath], payload, options);
}

/**
 * One agent session as Claude Code fires its hooks, one after another: SessionStart, `tools`
 * tool events, Stop, SessionEnd. Returns the SessionStart's output (the context the agent got).
 */
export async function fireSession(bin: string, sessionId: string, options: { env: Record<string, string>; cwd: string; tools: number }): Promise<string> {
  const start = await fireHook(bin, 'session-start', hookPayload('session-start.json', sessionId, options.cwd), options);
  for (let i = 0; i < options.tools; i += 1)
    await fireHook(bin, 'post-tool-use', hookPayload('post-tool-use-read.json', sessionId, options.cwd, `toolu_${sessionId}_${i}`), options);
  await fireHook(bin, 'stop', hookPayload('stop.json', sessionId, options.cwd), options);
  await fireHook(bin, 'session-end', hookPayload('session-end.json', sessionId, options.cwd), options);
  return start.stdout;
}
