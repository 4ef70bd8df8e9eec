import { describe, expect, it } from 'vitest';
import { mapObservation, mapSummary, mapType, peerList, peerTime } from '../../src/memory/claude-mem/peer-record.js';
import { missingFromSchema } from '../../src/memory/claude-mem/peer-schema.js';
import { createProjectNames } from '../../src/memory/claude-mem/project-names.js';

const row = (over: Record<string, unknown> = {}) => ({
  id: 7,
  memory_session_id: 'mem-1',
  project: 'shop',
  type: 'bugfix',
  title: 'A title',
  subtitle: null,
  narrative: 'A narrative',
  facts: '["f1"]',
  concepts: null,
  files_read: '[]',
  files_modified: null,
  created_at: '2026-01-10T09:00:00.000Z',
  created_at_epoch: 1_768_035_600_000,
  ...over,
});

describe("claude-mem's rows as memtrace memory", () => {
  it('keeps memtrace’s types and makes any other `other`, counted', () => {
    expect(mapType('decision')).toEqual({ type: 'decision', unknown: false });
    expect(mapType('Bugfix')).toEqual({ type: 'bugfix', unknown: false });
    expect(mapType('email-investigation')).toEqual({ type: 'other', unknown: true });
    expect(mapType(null)).toEqual({ type: 'other', unknown: true });
  });

  it('reads list fields as JSON arrays, plain text as one item, and nothing as none', () => {
    expect(peerList('["a","b"]')).toEqual(['a', 'b']);
    expect(peerList('[1, {"x":2}, null, ""]')).toEqual(['1', '{"x":2}']);
    expect(peerList('just text')).toEqual(['just text']);
    expect(peerList('"quoted"')).toEqual(['quoted']);
    expect(peerList(null)).toEqual([]);
    expect(peerList('  ')).toEqual([]);
  });

  it('reads the epoch in milliseconds or seconds, else the ISO text', () => {
    expect(peerTime(1_768_035_600_000, null)).toBe(1_768_035_600_000);
    expect(peerTime(1_768_035_600, null)).toBe(1_768_035_600_000);
    expect(peerTime(null, '2026-01-10T09:00:00.000Z')).toBe(Date.UTC(2026, 0, 10, 9));
    expect(peerTime(null, 'yesterday')).toBeNull();
  });

  it('keys a record by its session and id, takes the worktree merge target as the project, and names a subagent', () => {
    const mapped = mapObservation(row({ merged_into_project: 'shop-main', agent_id: 'a1', agent_type: 'Explore' }));
    expect(mapped).toMatchObject({ ok: true, key: 'observation:mem-1:7', project: 'shop-main', agent: { id: 'a1', type: 'Explore' } });
  });

  it('titles an untitled row from its subtitle or first line, and refuses one that says nothing or has no time', () => {
    expect(mapObservation(row({ title: null, subtitle: 'The subtitle' }))).toMatchObject({ observation: { title: 'The subtitle', subtitle: '' } });
    expect(mapObservation(row({ title: null, narrative: null, text: 'First line\nsecond' }))).toMatchObject({ observation: { title: 'First line' } });
    expect(mapObservation(row({ title: null, narrative: null, facts: null }))).toEqual({
      ok: false,
      key: 'observation:mem-1:7',
      reason: 'no title, narrative, text or facts',
    });
    expect(mapObservation(row({ created_at_epoch: null, created_at: 'later' }))).toMatchObject({ ok: false, reason: 'no readable created_at' });
    expect(mapSummary({ ...row(), request: null, investigated: null, learned: null, completed: null, next_steps: null, notes: null } as never)).toMatchObject({
      ok: false,
      reason: 'every field empty',
    });
  });

  it('names the first missing table or column', () => {
    const cols = (...names: string[]) => new Set(names);
    expect(missingFromSchema(new Map([['observations', cols('id')]]))).toBe('no table session_summaries');
    expect(
      missingFromSchema(
        new Map([
          ['observations', cols('id')],
          ['session_summaries', cols('id')],
        ]),
      ),
    ).toMatch(/^table observations has no column memory_session_id, project, /);
  });

  it('maps a folder name to the one known checkout with that name; shared or unknown names stay as given', () => {
    const names = createProjectNames([
      { project: '/w/shop', checkout: '/w/shop' },
      { project: '/w/shop', checkout: '/w/shop-feature' },
      { project: '/a/api', checkout: '/a/api' },
      { project: '/b/api', checkout: '/b/api' },
    ]);
    expect(names.map('shop')).toEqual({ project: '/w/shop', checkout: '/w/shop' });
    expect(names.map('shop-feature')).toEqual({ project: '/w/shop', checkout: '/w/shop-feature' });
    expect(names.map('api')).toEqual({ project: 'api', checkout: null });
    expect(names.map('blog')).toEqual({ project: 'blog', checkout: null });
    expect(names.report()).toEqual([
      { name: 'api', to: 'ambiguous' },
      { name: 'blog', to: 'kept' },
      { name: 'shop', to: '/w/shop' },
      { name: 'shop-feature', to: '/w/shop' },
    ]);
  });
});
