/** Builders for a temp project's `.claude/settings.json` hooks block, used by the Claude Code e2e runs. */
import fs from 'node:fs';
import path from 'node:path';

const RECORD_HOOK = path.join(import.meta.dirname, 'record-hook.mjs');

const RECORDED_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd', 'PreCompact', 'PostCompact'] as const;

export interface RecordingHooksOptions {
  /** JSONL file the hook appends `{ payload, env }` lines to. */
  outFile: string;
  /** Run PostToolUse / PostToolUseFailure hooks with `"async": true` (in the background). */
  asyncToolHooks?: boolean;
  /** additionalContext the SessionStart hook answers with. */
  sessionStartContext?: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The settings `hooks` block: the recording hook on every event memtrace cares about. */
export function recordingHooks(options: RecordingHooksOptions): Record<string, unknown> {
  const base = `${quote(process.execPath)} ${quote(RECORD_HOOK)} ${quote(options.outFile)}`;
  const hooks: Record<string, unknown> = {};
  for (const event of RECORDED_EVENTS) {
    const isTool = event === 'PostToolUse' || event === 'PostToolUseFailure';
    const command = event === 'SessionStart' && options.sessionStartContext !== undefined ? `${base} --context ${quote(options.sessionStartContext)}` : base;
    const hook: Record<string, unknown> = { type: 'command', command };
    if (isTool && options.asyncToolHooks) hook.async = true;
    hooks[event] = [{ ...(isTool ? { matcher: '*' } : {}), hooks: [hook] }];
  }
  return hooks;
}

/** Writes `<projectDir>/.claude/settings.json` with the given hooks block (none: no hooks). */
export function writeProjectSettings(projectDir: string, hooks?: Record<string, unknown>): void {
  fs.mkdirSync(path.join(projectDir, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(projectDir, '.claude', 'settings.json'), JSON.stringify(hooks ? { hooks } : {}, null, 2));
}

/** The recorded hook lines, in arrival order. */
export function readRecordedHooks(outFile: string): Array<{ payload: any; env: Record<string, string> }> {
  if (!fs.existsSync(outFile)) return [];
  return fs
    .readFileSync(outFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}
