import { describe, expect, it } from 'vitest';
import { chooseLiveObserver } from '../../src/providers/live-choice.js';
import { observerEnvSet, unseenByWorker } from '../../src/providers/observer-env.js';

const DATA = '/home/u/.memtrace';

describe('the observer choice, looked at again', () => {
  it('changes when an agent CLI appears on PATH (or goes), and says when it noticed', () => {
    const onPath = new Set<string>();
    const made = chooseLiveObserver({ PATH: '/bin' }, { dataDir: DATA, findBinary: (name) => (onPath.has(name) ? `/bin/${name}` : null) });
    if ('error' in made) throw new Error(made.error);
    const { choice } = made;
    expect(choice.providers).toEqual([]);
    expect(choice.refresh(0)).toBeNull();
    onPath.add('gemini');
    const line = choice.refresh(Date.UTC(2026, 10, 29, 8));
    expect(line).toBe(
      'observer: each session’s own agent CLI, with your own login (claude-code not found, gemini-cli found, codex not found, opencode not found, copilot not found, pi not found) — no API key is set (noticed at 2026-11-29T08:00:00.000Z, without a restart)',
    );
    expect(choice.forPlatform('gemini-cli')?.name).toBe('gemini-cli');
    expect(choice.forPlatform('claude-code')).toBeNull();
    expect(choice.primary.name).toBe('gemini-cli');
    // Nothing changed since: the same choice, the same provider objects.
    const provider = choice.forPlatform('gemini-cli');
    expect(choice.refresh(Date.UTC(2026, 10, 29, 9))).toBeNull();
    expect(choice.forPlatform('gemini-cli')).toBe(provider);
    onPath.delete('gemini');
    expect(choice.refresh(Date.UTC(2026, 10, 29, 10))).toContain('no agent CLI');
    expect(choice.providers).toEqual([]);
  });

  it('never changes a choice a key or MEMTRACE_PROVIDER made (the environment is the start’s)', () => {
    const onPath = new Set<string>();
    const made = chooseLiveObserver({ ANTHROPIC_API_KEY: 'k' }, { dataDir: DATA, findBinary: (name) => (onPath.has(name) ? name : null) });
    if ('error' in made) throw new Error(made.error);
    onPath.add('claude');
    expect(made.choice.refresh(1)).toBeNull();
    expect(made.choice.primary.name).toBe('anthropic');
  });
});

describe('what the worker did not see', () => {
  it('names the observer variables set here and missing there, never a value', () => {
    const here = observerEnvSet({ ANTHROPIC_API_KEY: 'sk-1', OPENAI_BASE_URL: ' ', MEMTRACE_MODEL: 'haiku', HOME: '/h' });
    expect(here).toEqual(['ANTHROPIC_API_KEY', 'MEMTRACE_MODEL']);
    expect(unseenByWorker(here, ['MEMTRACE_MODEL'])).toEqual(['ANTHROPIC_API_KEY']);
  });

  it('names a Copilot CLI login set after the worker started (it decides whether Copilot observes), not the GitHub tokens shells keep for other tools', () => {
    const here = observerEnvSet({ COPILOT_GITHUB_TOKEN: 'gho_1', GITHUB_TOKEN: 'ghp_2', GH_TOKEN: 'ghp_3' });
    expect(unseenByWorker(here, [])).toEqual(['COPILOT_GITHUB_TOKEN']);
  });
});
