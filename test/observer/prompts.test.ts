import { describe, expect, it } from 'vitest';
import { buildObservationPrompt, buildSummaryPrompt, capField } from '../../src/observer/prompts.js';

describe('observer prompts', () => {
  it('keeps head and tail of a long field with an elision marker', () => {
    const text = `HEAD${'x'.repeat(40_000)}TAIL`;
    const capped = capField(text, 16_000);
    expect(capped.length).toBeLessThanOrEqual(16_000);
    expect(capped.startsWith('HEAD')).toBe(true);
    expect(capped.endsWith('TAIL')).toBe(true);
    expect(capped).toMatch(/…\[elided \d+ characters\]…/);
  });

  it('never splits a surrogate pair', () => {
    const capped = capField('🙂'.repeat(20_000), 1_000);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('leaves a short field untouched', () => {
    expect(capField('short')).toBe('short');
  });

  it('puts the tool, time, cwd, input and output of exactly one event in one user message', () => {
    const prompt = buildObservationPrompt(
      { toolName: 'Edit', toolInput: { file_path: 'a.ts' }, toolResponse: 'x'.repeat(50_000), cwd: '/repo', atMs: Date.UTC(2026, 0, 2) },
      { project: 'demo', userPrompt: 'fix it' },
    );
    expect(prompt.messages).toHaveLength(1);
    const content = prompt.messages[0]!.content;
    expect(content).toContain('tool: Edit');
    expect(content).toContain('2026-01-02T00:00:00.000Z');
    expect(content).toContain('"file_path": "a.ts"');
    expect(content.length).toBeLessThan(20_000);
  });

  it('asks for a summary or a skip', () => {
    const prompt = buildSummaryPrompt(
      { lastAssistantMessage: 'done', recentObservations: [{ type: 'bugfix', title: 'Fixed login' }] },
      { project: 'p', userPrompt: null },
    );
    expect(prompt.system).toContain('<skip_summary');
    expect(prompt.messages[0]!.content).toContain('[bugfix] Fixed login');
  });
});
