import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planHook, type HookName } from '../../src/hook/hook-plan.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join('test/fixtures/claude-code/hooks', `${name}.json`), 'utf8')) as Record<string, unknown>;

describe('planHook on payloads the real Claude Code sent', () => {
  it.each([
    ['session-start', 'session-start', ['POST /api/sessions/init', 'GET /api/context/inject']],
    ['user-prompt-submit', 'user-prompt-submit', ['POST /api/sessions/init']],
    ['post-tool-use', 'post-tool-use-read', ['POST /api/sessions/observations']],
    ['post-tool-use-failure', 'post-tool-use-failure-bash', ['POST /api/sessions/observations']],
    ['stop', 'stop', ['POST /api/sessions/summarize']],
    ['session-end', 'session-end', ['POST /api/sessions/end']],
  ] as const)('%s (%s.json) becomes %j', (hook, file, calls) => {
    const plan = planHook(hook as HookName, fixture(file));
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.calls.map((c) => `${c.method} ${c.path.split('?')[0]}`)).toEqual(calls);
    for (const call of plan.calls) if (call.body) expect(call.body).toMatchObject({ session_id: '11111111-2222-4333-8444-555555555555', transcript_path: expect.stringContaining('.jsonl'), cwd: '/home/user/project' });
  });

  it('carries a failure’s error, interrupt flag and duration, and no tool_response', () => {
    const plan = planHook('post-tool-use-failure', fixture('post-tool-use-failure-bash'));
    expect(plan.ok && plan.calls[0]!.body).toEqual({
      session_id: '11111111-2222-4333-8444-555555555555',
      cwd: '/home/user/project',
      transcript_path: expect.any(String),
      tool_use_id: 'toolu_e2e_bash_fail',
      tool_name: 'Bash',
      tool_input: { command: 'exit 3', description: 'Fail on purpose' },
      error: 'Exit code 3',
      is_interrupt: false,
      duration_ms: 6,
      prompt_id: expect.any(String),
    });
  });

  it('keeps every prompt with its prompt_id, SessionStart’s source and SessionEnd’s reason', () => {
    const prompt = planHook('user-prompt-submit', fixture('user-prompt-submit'));
    expect(prompt.ok && prompt.calls[0]!.body).toMatchObject({ prompt: expect.any(String), prompt_id: expect.any(String) });
    const start = planHook('session-start', fixture('session-start-resume'));
    expect(start.ok && start.calls[0]!.body).toMatchObject({ source: 'resume' });
    expect(start.ok && start.calls[1]!.path).toContain('cwd=%2Fhome%2Fuser%2Fproject');
    const end = planHook('session-end', fixture('session-end'));
    expect(end.ok && end.calls[0]!.body).toMatchObject({ reason: 'other' });
  });

  it('uses the transcript fallback only when Stop has no last_assistant_message', () => {
    const withMessage = planHook('stop', fixture('stop'), { lastAssistantMessage: 'from transcript' });
    expect(withMessage.ok && withMessage.calls[0]!.body?.last_assistant_message).not.toBe('from transcript');
    const { last_assistant_message: _, ...older } = fixture('stop');
    const fallback = planHook('stop', older, { lastAssistantMessage: 'from transcript' });
    expect(fallback.ok && fallback.calls[0]!.body?.last_assistant_message).toBe('from transcript');
  });

  it('refuses input without a session_id or tool_name, saying which', () => {
    expect(planHook('stop', {})).toEqual({ ok: false, reason: 'hook input has no session_id' });
    expect(planHook('post-tool-use', { session_id: 's' })).toEqual({ ok: false, reason: 'post-tool-use input has no tool_name' });
  });
});
