import { describe, expect, it } from 'vitest';
import { buildBatchPrompt, eventRef, OBSERVER_SYSTEM } from '../../src/observer/prompts.js';

const AT = Date.UTC(2026, 0, 2);

describe('observer prompts', () => {
  it('puts every tool event of a turn in one user message, each under its own reference', () => {
    const prompt = buildBatchPrompt(
      {
        events: [
          { toolName: 'Bash', toolInput: { command: 'npm test' }, toolResponse: { stdout: 'Tests: 12 passed' }, atMs: AT },
          {
            toolName: 'Read',
            toolInput: { file_path: 'src/a.ts' },
            toolResponse: { file: { content: 'SECRET-LOOKING CONTENT', numLines: 3, startLine: 1 } },
            atMs: AT,
          },
        ],
        turnEnd: null,
      },
      { project: 'demo', userPrompt: 'fix it' },
    );
    expect(prompt.messages).toHaveLength(1);
    const content = prompt.messages[0]!.content;
    expect(content).toContain('<event id="e1" tool="Bash" time="2026-01-02T00:00:00Z" result="ok">');
    expect(content).toContain('<event id="e2" tool="Read"');
    expect(content).toContain('file: src/a.ts');
    expect(content).not.toContain('SECRET-LOOKING CONTENT');
    expect(content).not.toContain('<turn_end>');
    expect(eventRef(1)).toBe('e2');
  });

  it('asks for a summary with the turn end, in the same call, and keeps the system prompt the same for every batch', () => {
    const prompt = buildBatchPrompt(
      { events: [], turnEnd: { lastAssistantMessage: 'done', recentObservations: [{ type: 'bugfix', title: 'Fixed login' }] } },
      { project: 'p', userPrompt: null },
    );
    expect(prompt.system).toBe(OBSERVER_SYSTEM);
    expect(prompt.system).toContain('<skip_summary');
    expect(prompt.system).toContain('<sources><event>e1</event></sources>');
    const content = prompt.messages[0]!.content;
    expect(content).toContain('<turn_end>');
    expect(content).toContain('[bugfix] Fixed login');
    expect(content).toContain("agent's last message:\ndone");
  });
});
