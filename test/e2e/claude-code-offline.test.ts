/**
 * SLOW (~5 s): drives the REAL Claude Code CLI (pinned devDependency) offline against the fake
 * Anthropic API, in a loopback-only network namespace when `unshare -n` works. Skipped, with a
 * message, only when the claude binary cannot run at all.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookContextTexts, lastToolResults, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { CLAUDE_BIN, claudeUnavailableReason, loopbackSandboxAvailable, readJsonl, runClaudeCode, type ClaudeRunResult } from '../support/claude-code.js';
import { basicScript, BASIC_FINAL_TEXT, BASIC_PROMPT, writeBasicProject } from '../support/claude-code-scenario.js';
import { readRecordedHooks, recordingHooks, writeProjectSettings } from '../support/hook-settings.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping the Claude Code e2e tests: ${unavailable}`);
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/claude-code/hooks');
const CANARY = 'MEMTRACE-CANARY-123';

interface Session {
  temp: ReturnType<typeof makeTempDir>;
  fake: FakeAnthropic;
  result: ClaudeRunResult;
  hooks: any[];
  projectDir: string;
  notes: string;
}

/**
 * One scripted session with the recording hook on every event; the SessionStart hook answers the
 * canary. With async tool hooks, a sync Stop hook waits (bounded) until the four tool payloads are
 * recorded: `-p` kills async hooks still running when it exits, which would make the check racy.
 */
async function recordedSession(asyncToolHooks: boolean): Promise<Session> {
  const temp = makeTempDir('memtrace-cc-e2e-');
  const projectDir = path.join(temp.dir, 'project');
  fs.mkdirSync(projectDir);
  const hookLog = path.join(temp.dir, 'hooks.jsonl');
  const hooks: Record<string, any> = recordingHooks({ outFile: hookLog, asyncToolHooks, sessionStartContext: CANARY });
  if (asyncToolHooks) hooks.Stop[0].hooks.push(waitForLinesHook(hookLog, '"hook_event_name":"PostToolUse', 4));
  writeProjectSettings(projectDir, hooks);
  const notes = writeBasicProject(projectDir);
  const fake = await startFakeAnthropic({ script: basicScript(notes) });
  try {
    const result = await runClaudeCode({ projectDir, prompt: BASIC_PROMPT, apiUrl: fake.url, home: path.join(temp.dir, 'home'), timeoutMs: 60_000 });
    return { temp, fake, result, hooks: readRecordedHooks(hookLog).map((h) => h.payload), projectDir, notes };
  } catch (error) {
    await fake.close();
    temp.cleanup();
    throw error;
  }
}

/** A command hook that returns once `file` has `count` lines containing `text`, or after 10 s. */
function waitForLinesHook(file: string, text: string, count: number): Record<string, unknown> {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return {
    type: 'command',
    command: `i=0; while [ "$(grep -cF ${q(text)} ${q(file)} 2>/dev/null)" != ${count} ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done`,
  };
}

const byEvent = (hooks: any[], event: string) => hooks.filter((h) => h.hook_event_name === event);

describe.skipIf(unavailable !== null)('the real Claude Code CLI offline against a fake Anthropic API', () => {
  let s: Session;
  beforeAll(async () => {
    s = await recordedSession(false);
  }, 90_000);
  afterAll(async () => {
    await s?.fake.close();
    s?.temp.cleanup();
  });

  it('follows the script to its end and exits 0 with the final text', () => {
    expect(s.result.exitCode, s.result.stderr).toBe(0);
    expect(s.result.json).toMatchObject({ type: 'result', is_error: false, result: BASIC_FINAL_TEXT });
    expect(s.fake.remainingTurns()).toBe(0);
    expect(s.fake.exhausted()).toBe(false);
    expect(fs.readFileSync(s.notes, 'utf8')).toBe('alpha\ngamma\n');
    expect(s.result.sandboxed).toBe(loopbackSandboxAvailable());
  });

  it('sends the tool results back, the failed command flagged is_error', () => {
    const bodies = s.fake.mainBodies();
    expect(bodies).toHaveLength(5);
    expect(lastToolResults(bodies[1]).map((r) => r.tool_use_id)).toEqual(['toolu_e2e_bash_ok']);
    expect(lastToolResults(bodies[4])).toEqual([expect.objectContaining({ tool_use_id: 'toolu_e2e_bash_fail', is_error: true, content: 'Exit code 3' })]);
  });

  it('puts SessionStart additionalContext into a system-role message of every request', () => {
    for (const body of s.fake.mainBodies()) {
      expect(hookContextTexts(body).some((t) => t.startsWith(`SessionStart hook additional context: ${CANARY}`))).toBe(true);
      expect(JSON.stringify(body.system)).not.toContain(CANARY);
    }
  });

  it('fires each hook event once per occurrence, in order', () => {
    expect(s.hooks.map((h) => h.hook_event_name)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse',
      'PostToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'Stop',
      'SessionEnd',
    ]);
  });

  it('gives every hook the session id, cwd and transcript path', () => {
    const sessionId = s.result.json.session_id;
    for (const h of s.hooks) {
      expect(h).toMatchObject({ session_id: sessionId, cwd: s.projectDir });
      expect(s.result.transcripts).toContain(h.transcript_path);
    }
  });

  it('sends the documented fields of each event', () => {
    expect(byEvent(s.hooks, 'SessionStart')[0]).toMatchObject({ source: 'startup' });
    expect(byEvent(s.hooks, 'UserPromptSubmit')[0]).toMatchObject({ prompt: BASIC_PROMPT, permission_mode: 'default' });
    const [bash, read, edit] = byEvent(s.hooks, 'PostToolUse');
    expect(bash).toMatchObject({
      tool_name: 'Bash',
      tool_use_id: 'toolu_e2e_bash_ok',
      tool_input: { command: 'echo hi' },
      tool_response: { stdout: 'hi', stderr: '', interrupted: false },
    });
    expect(read).toMatchObject({
      tool_name: 'Read',
      tool_use_id: 'toolu_e2e_read',
      tool_response: { type: 'text', file: { filePath: s.notes, content: 'alpha\nbeta\n' } },
    });
    expect(edit).toMatchObject({
      tool_name: 'Edit',
      tool_use_id: 'toolu_e2e_edit',
      tool_response: { filePath: s.notes, originalFile: 'alpha\nbeta\n', oldString: 'beta', newString: 'gamma' },
    });
    for (const h of [bash, read, edit]) expect(h.duration_ms).toEqual(expect.any(Number));
    const failure = byEvent(s.hooks, 'PostToolUseFailure')[0];
    expect(failure).toMatchObject({
      tool_name: 'Bash',
      tool_use_id: 'toolu_e2e_bash_fail',
      error: 'Exit code 3',
      is_interrupt: false,
      tool_input: { command: 'exit 3' },
    });
    expect(failure).not.toHaveProperty('tool_response');
    expect(byEvent(s.hooks, 'Stop')[0]).toMatchObject({ stop_hook_active: false, last_assistant_message: BASIC_FINAL_TEXT });
    expect(byEvent(s.hooks, 'SessionEnd')[0]).toMatchObject({ reason: 'other' });
  });

  it('writes a transcript whose tool results match the hooks, paired by tool_use_id', () => {
    const lines = readJsonl(s.hooks[0].transcript_path);
    const results = new Map<string, any>();
    for (const line of lines) {
      if (line.type !== 'user' || !Array.isArray(line.message?.content)) continue;
      for (const block of line.message.content) if (block.type === 'tool_result') results.set(block.tool_use_id, line.toolUseResult);
    }
    for (const h of byEvent(s.hooks, 'PostToolUse')) expect(results.get(h.tool_use_id)).toEqual(h.tool_response);
    expect(results.get('toolu_e2e_bash_fail')).toBe('Error: Exit code 3');
  });

  it('sends the same payload keys as the captured fixtures (regenerate them when this fails after an upgrade)', () => {
    const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'));
    const keys = (o: object) => Object.keys(o).sort();
    const [bash, read, edit] = byEvent(s.hooks, 'PostToolUse');
    const pairs: Array<[string, any]> = [
      ['session-start', byEvent(s.hooks, 'SessionStart')[0]],
      ['user-prompt-submit', byEvent(s.hooks, 'UserPromptSubmit')[0]],
      ['post-tool-use-bash', bash],
      ['post-tool-use-read', read],
      ['post-tool-use-edit', edit],
      ['post-tool-use-failure-bash', byEvent(s.hooks, 'PostToolUseFailure')[0]],
      ['stop', byEvent(s.hooks, 'Stop')[0]],
      ['session-end', byEvent(s.hooks, 'SessionEnd')[0]],
    ];
    for (const [name, live] of pairs) expect(keys(live), name).toEqual(keys(fixture(name)));
  });

  // Last in this block: it resumes (and so changes) the session the tests above read.
  it('compacts the resumed session on /compact: a compact_boundary line, then SessionStart with source compact', async () => {
    const sessionId = s.result.json.session_id;
    const hookLog = path.join(s.temp.dir, 'hooks.jsonl');
    const before = readRecordedHooks(hookLog).length;
    const fake = await startFakeAnthropic({ script: [], compactSummary: 'SUMMARY-OF-THE-SCRIPTED-SESSION' });
    const compact = await runClaudeCode({
      projectDir: s.projectDir,
      prompt: '/compact',
      apiUrl: fake.url,
      home: s.result.home,
      extraArgs: ['--resume', sessionId],
      timeoutMs: 60_000,
    });
    await fake.close();
    expect(compact.exitCode, compact.stderr).toBe(0);
    expect(fake.requests.filter((r) => r.kind === 'compact')).toHaveLength(1);
    expect(fake.requests.filter((r) => r.kind === 'main')).toHaveLength(0);
    const lines = readJsonl(s.hooks[0].transcript_path);
    const boundary = lines.findIndex((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    expect(lines[boundary]).toMatchObject({ parentUuid: null, sessionId, compactMetadata: { trigger: 'manual' } });
    expect(lines[boundary + 1]).toMatchObject({ type: 'user', isCompactSummary: true });
    expect(JSON.stringify(lines[boundary + 1].message)).toContain('SUMMARY-OF-THE-SCRIPTED-SESSION');
    const events = readRecordedHooks(hookLog)
      .slice(before)
      .map((h) => `${h.payload.hook_event_name}:${h.payload.source ?? h.payload.trigger ?? h.payload.reason ?? ''}`);
    expect(events).toEqual(['SessionStart:resume', 'PreCompact:manual', 'SessionStart:compact', 'PostCompact:manual', 'SessionEnd:other']);
  }, 90_000);
});

describe.skipIf(unavailable !== null)('Claude Code hooks variants', () => {
  it('gives async PostToolUse / PostToolUseFailure hooks the same payloads', async () => {
    const s = await recordedSession(true);
    try {
      expect(s.result.exitCode, s.result.stderr).toBe(0);
      const tools = s.hooks.filter((h) => h.hook_event_name.startsWith('PostToolUse'));
      expect(tools.map((h) => h.tool_use_id).sort()).toEqual(['toolu_e2e_bash_fail', 'toolu_e2e_bash_ok', 'toolu_e2e_edit', 'toolu_e2e_read']);
      const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'post-tool-use-edit.json'), 'utf8'));
      expect(Object.keys(tools.find((h) => h.tool_name === 'Edit')).sort()).toEqual(Object.keys(fixture).sort());
    } finally {
      await s.fake.close();
      s.temp.cleanup();
    }
  }, 90_000);

  it('does not wait for an async hook, and kills one still running when -p exits', async () => {
    const temp = makeTempDir('memtrace-cc-e2e-');
    const fake = await startFakeAnthropic({ script: [{ toolCalls: [{ name: 'Bash', input: { command: 'echo hi' } }] }, { text: 'ok' }] });
    try {
      const projectDir = path.join(temp.dir, 'project');
      fs.mkdirSync(projectDir);
      const pidFile = path.join(temp.dir, 'hook.pid');
      const finished = path.join(temp.dir, 'finished');
      writeProjectSettings(projectDir, {
        PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', async: true, command: `echo $$ > '${pidFile}'; sleep 30; touch '${finished}'` }] }],
        // Holds the session open until the async hook has surely started.
        Stop: [{ hooks: [waitForLinesHook(pidFile, '', 1)] }],
      });
      const result = await runClaudeCode({ projectDir, prompt: 'hi', apiUrl: fake.url, home: path.join(temp.dir, 'home'), timeoutMs: 25_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.timedOut).toBe(false);
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      await waitFor(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 5_000);
      expect(fs.existsSync(finished)).toBe(false);
    } finally {
      await fake.close();
      temp.cleanup();
    }
  }, 90_000);
});

describe.skipIf(unavailable !== null)('claude plugin validate, offline', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeAll(() => {
    temp = makeTempDir('memtrace-cc-plugin-');
  });
  afterAll(() => temp.cleanup());

  /** A minimal plugin folder: manifest plus a hooks file; `manifest` overrides manifest fields. */
  function plugin(name: string, manifest: Record<string, unknown>): string {
    const dir = path.join(temp.dir, name);
    fs.mkdirSync(path.join(dir, '.claude-plugin'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'hooks'));
    fs.writeFileSync(
      path.join(dir, '.claude-plugin', 'plugin.json'),
      JSON.stringify({
        name: 'memtrace',
        version: '0.1.0',
        description: 'Durable memory for coding sessions',
        author: { name: 'memtrace' },
        license: 'MIT',
        ...manifest,
      }),
    );
    const hook = (arg: string) => ({ type: 'command', command: `node "\${CLAUDE_PLUGIN_ROOT}/bin/hook.mjs" ${arg}` });
    fs.writeFileSync(
      path.join(dir, 'hooks', 'hooks.json'),
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [hook('session-start')] }], PostToolUse: [{ matcher: '*', hooks: [{ ...hook('post-tool-use'), async: true }] }] },
      }),
    );
    return dir;
  }
  function validate(dir: string, ...flags: string[]): { status: number | null; report: any } {
    const run = spawnSync(CLAUDE_BIN, ['plugin', 'validate', '--json', ...flags, dir], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });
    return { status: run.status, report: JSON.parse(run.stdout) };
  }

  it('passes a valid plugin with exit 0 and no manifest findings', () => {
    const { status, report } = validate(plugin('valid', {}));
    expect(status).toBe(0);
    expect(report).toMatchObject({ success: true, manifest: { errors: [], warnings: [] } });
    expect(report.provides.hooks.map((h: any) => h.event)).toEqual(['SessionStart', 'PostToolUse']);
  });

  it('passes an unknown manifest field as a warning, exit 0 (exit 1 with --strict)', () => {
    const dir = plugin('unknown-field', { frobnicate: true });
    const { status, report } = validate(dir);
    expect(status).toBe(0);
    expect(report.manifest.warnings).toEqual([expect.objectContaining({ path: 'frobnicate', message: expect.stringContaining('Unknown field') })]);
    expect(validate(dir, '--strict').status).toBe(1);
  });

  it('fails a wrong-typed manifest field with exit 1', () => {
    const { status, report } = validate(plugin('wrong-type', { version: 42 }));
    expect(status).toBe(1);
    expect(report).toMatchObject({
      success: false,
      manifest: { errors: [expect.objectContaining({ path: 'version', message: expect.stringContaining('expected string') })] },
    });
  });
});
