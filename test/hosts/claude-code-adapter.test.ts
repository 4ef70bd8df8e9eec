import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/hosts/claude-code/adapter.js';
import { parseEvent } from '../../src/hosts/index.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join('test/fixtures/claude-code/hooks', `${name}.json`), 'utf8')) as Record<string, unknown>;
const adapt = (name: string, payload: Record<string, unknown>, deps = {}) => claudeCodeAdapter.toEvent(name, payload, deps);

describe('the Claude Code adapter on payloads the real Claude Code sent', () => {
  it.each([
    ['session-start', 'session-start', 'session_start'],
    ['SessionStart', 'session-start', 'session_start'],
    ['user-prompt-submit', 'user-prompt-submit', 'user_prompt_submit'],
    ['post-tool-use', 'post-tool-use-read', 'post_tool_use'],
    ['PostToolUseFailure', 'post-tool-use-failure-bash', 'post_tool_use_failure'],
    ['stop', 'stop', 'stop'],
    ['session-end', 'session-end', 'session_end'],
  ] as const)('%s (%s.json) becomes a valid %s event', (name, file, kind) => {
    const adapted = adapt(name, fixture(file));
    expect(adapted.ok && adapted.event).toMatchObject({
      kind,
      session_id: '11111111-2222-4333-8444-555555555555',
      transcript_path: expect.stringContaining('.jsonl'),
      cwd: '/home/user/project',
      platform: 'claude-code',
    });
    if (!adapted.ok || !adapted.event) return;
    expect(parseEvent(kind, adapted.event)).toMatchObject({ ok: true, event: { kind } });
  });

  it('carries a failure’s error, exit code, interrupt flag and duration, and no tool_response', () => {
    const adapted = adapt('post-tool-use-failure', fixture('post-tool-use-failure-bash'));
    expect(adapted.ok && adapted.event).toEqual({
      kind: 'post_tool_use_failure',
      session_id: '11111111-2222-4333-8444-555555555555',
      cwd: '/home/user/project',
      transcript_path: expect.any(String),
      platform: 'claude-code',
      tool_use_id: 'toolu_e2e_bash_fail',
      tool_name: 'Bash',
      tool_input: { command: 'exit 3', description: 'Fail on purpose' },
      error: 'Exit code 3',
      exit_code: 3,
      is_interrupt: false,
      duration_ms: 6,
      prompt_id: expect.any(String),
    });
  });

  it('keeps every prompt with its prompt_id, SessionStart’s source and SessionEnd’s reason', () => {
    expect(adapt('user-prompt-submit', fixture('user-prompt-submit'))).toMatchObject({
      ok: true,
      event: { prompt: expect.any(String), prompt_id: expect.any(String) },
    });
    expect(adapt('session-start', fixture('session-start-resume'))).toMatchObject({ ok: true, event: { source: 'resume' } });
    expect(adapt('session-end', fixture('session-end'))).toMatchObject({ ok: true, event: { reason: 'other' } });
  });

  it('reads the final message from the transcript only when Stop has none', () => {
    const fromTranscript = { lastAssistantText: () => 'from transcript' };
    expect(adapt('stop', fixture('stop'), fromTranscript)).not.toMatchObject({ event: { last_assistant_message: 'from transcript' } });
    const { last_assistant_message: _, ...older } = fixture('stop');
    expect(adapt('stop', older, fromTranscript)).toMatchObject({ ok: true, event: { last_assistant_message: 'from transcript' } });
  });

  it('refuses input without a session_id or tool_name, saying which, and ignores hooks it does not handle', () => {
    expect(adapt('stop', {})).toEqual({ ok: false, reason: 'hook input has no session_id' });
    expect(adapt('post-tool-use', { session_id: 's' })).toEqual({ ok: false, reason: 'post-tool-use input has no tool_name' });
    expect(adapt('PreToolUse', { session_id: 's' })).toMatchObject({ ok: true, event: null });
  });

  it('prints session-start context as the JSON Claude Code reads', () => {
    expect(JSON.parse(claudeCodeAdapter.contextOutput('# memory'))).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# memory' },
    });
  });
});
