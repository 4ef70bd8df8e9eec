import { describe, expect, it } from 'vitest';
import { applyCommitVerdicts, hashesToCheck, type CommitVerdict } from '../../src/observer/claim-check.js';
import { claimedHashes } from '../../src/observer/commit-claims.js';
import { pathKey, reconcileFileClaims } from '../../src/observer/file-claims.js';
import { toolEvidence } from '../../src/observer/tool-evidence.js';
import type { ParsedObservation } from '../../src/vocabulary/observation.js';
import { parsedObservation } from '../support/memory-fixtures.js';

const obs = (over: Partial<ParsedObservation> = {}): ParsedObservation => parsedObservation({ type: 'change', title: 't', ...over });
const FULL = '0123456789abcdef0123456789abcdef01234567';

describe('which hex strings claim a commit', () => {
  it('takes a hash after commit/sha/hash/revision, and a bare full 40-hex id', () => {
    expect(claimedHashes(`fixed in commit a1b2c3d; see sha: 9f8e7d6c5b4a and ${FULL}`).sort()).toEqual([FULL, '9f8e7d6c5b4a', 'a1b2c3d'].sort());
  });

  it('ignores hex outside a commit context: a colour, a UUID segment, an identifier, a word', () => {
    const text = 'set color #a1b2c3d4 and #ff00aa; session 550e8400-e29b-41d4-a716-446655440000 hash 550e8400-e29b; var x_a1b2c3d4e5 and the hash deadbeef';
    expect(claimedHashes(text)).toEqual([]);
  });
});

describe('applying the repository’s verdicts', () => {
  const verdicts: Record<string, CommitVerdict> = { a1b2c3d: 'exists', bad1234: 'missing', f00d123: 'unverifiable' };
  const verdictOf = (h: string) => verdicts[h] ?? 'unverifiable';

  it('refuses an observation whose title or narrative asserts a missing commit, and keeps the honest one', () => {
    const honest = obs({ title: 'Fix landed in commit a1b2c3d' });
    const fabricated = obs({ title: 'Reverted commit bad1234' });
    const result = applyCommitVerdicts([honest, fabricated], null, verdictOf);
    expect(result.observations.map((o) => o.title)).toEqual(['Fix landed in commit a1b2c3d']);
    expect(result.observations[0]!.claims).toEqual([{ kind: 'commit', value: 'a1b2c3d', verdict: 'verified', in: 'title' }]);
    expect(result).toMatchObject({ rejected: 1, refused: 1, unverifiable: 0 });
  });

  it('removes a fact resting on a missing commit, keeps and marks an unverifiable one', () => {
    const result = applyCommitVerdicts([obs({ facts: ['pushed as commit bad1234', 'tagged commit f00d123', 'tests pass'] })], null, verdictOf);
    expect(result.observations[0]!.facts).toEqual(['tagged commit f00d123', 'tests pass']);
    expect(result.observations[0]!.claims.map((c) => c.kind === 'commit' && c.verdict)).toEqual(['rejected', 'unverifiable']);
    expect(result).toMatchObject({ rejected: 1, unverifiable: 1 });
  });

  it('removes only the summary lines asserting a missing commit', () => {
    const summary = { request: 'ship it', investigated: '', learned: '', completed: 'merged commit a1b2c3d\nand commit bad1234', next_steps: '', notes: '' };
    const result = applyCommitVerdicts([], summary, verdictOf);
    expect(result.summary?.completed).toBe('merged commit a1b2c3d');
    expect(result.rejected).toBe(1);
    expect(hashesToCheck([], summary).sort()).toEqual(['a1b2c3d', 'bad1234']);
  });
});

describe('file claims', () => {
  const root = '/repo';
  const toKey = (p: string) => pathKey(p, root);

  it('keeps files_modified only where a tool event wrote the file, compared relative to the root', () => {
    const checked = { ...obs({ files_modified: ['src/a.ts', '/repo/src/b.ts', 'src/never-written.ts'], files_read: ['README.md'] }), claims: [] };
    const evidence = { written: new Set(['a', 'b'].map((x) => toKey(`/repo/src/${x}.ts`))) };
    const { observation, removed } = reconcileFileClaims(checked, evidence, ['/repo/docs/guide.md', '/repo/README.md'], toKey);
    expect(observation.files_modified).toEqual(['src/a.ts', '/repo/src/b.ts']);
    expect(removed).toBe(1);
    expect(observation.files_read).toEqual(['README.md', 'docs/guide.md']);
    expect(observation.claims.filter((c) => c.kind === 'file_modified')).toEqual([
      { kind: 'file_modified', value: 'src/a.ts', verdict: 'evidenced' },
      { kind: 'file_modified', value: '/repo/src/b.ts', verdict: 'evidenced' },
      { kind: 'file_modified', value: 'src/never-written.ts', verdict: 'removed' },
    ]);
  });

  it('normalises paths: ./, .., trailing slashes, and absolute paths inside the root', () => {
    expect(['./src/a.ts', 'src/x/../a.ts', '/repo/src/a.ts', '/repo//src/./a.ts'].map(toKey)).toEqual(['src/a.ts', 'src/a.ts', 'src/a.ts', 'src/a.ts']);
    expect(toKey('/elsewhere/a.ts')).toBe('/elsewhere/a.ts');
  });

  it('reads what tools wrote from their inputs; a failed call wrote nothing', () => {
    expect(toolEvidence('Edit', { file_path: '/repo/a.ts', old_string: 'x', new_string: 'y' }, false)).toEqual({ written: ['/repo/a.ts'], read: [] });
    expect(toolEvidence('NotebookEdit', { notebook_path: '/repo/n.ipynb' }, false).written).toEqual(['/repo/n.ipynb']);
    expect(toolEvidence('Read', { file_path: '/repo/r.ts' }, false)).toEqual({ written: [], read: ['/repo/r.ts'] });
    expect(toolEvidence('Write', { file_path: '/repo/w.ts' }, true).written).toEqual([]);
    const patch = '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** End Patch';
    expect(toolEvidence('apply_patch', { input: patch }, false).written).toEqual(['src/app.ts', 'src/new.ts']);
    expect(toolEvidence('Bash', { command: 'echo hi > out.txt' }, false).written).toEqual([]);
  });
});
