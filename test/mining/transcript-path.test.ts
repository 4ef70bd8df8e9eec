import { describe, expect, it } from 'vitest';
import {
  defaultProjectsDir,
  legacyKey,
  parseMinedKey,
  segmentKey,
  sessionIdOfListedFile,
  sessionIdOfNamedFile,
  transcriptPathFor,
} from '../../src/mining/index.js';

const ID = '3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c';

describe('where transcripts are and what they are called', () => {
  it('prefers the transcript_path the hooks reported over a guess from the cwd', () => {
    expect(
      transcriptPathFor({ sessionId: ID, transcriptPath: `/custom/config/projects/x/${ID}.jsonl`, cwd: '/work/app', projectsDir: '/home/u/.claude/projects' }),
    ).toBe(`/custom/config/projects/x/${ID}.jsonl`);
    expect(transcriptPathFor({ sessionId: ID, cwd: '/work/my_app.v2', projectsDir: '/home/u/.claude/projects' })).toBe(
      `/home/u/.claude/projects/-work-my-app-v2/${ID}.jsonl`,
    );
    expect(transcriptPathFor({ sessionId: ID, cwd: `/${'a'.repeat(250)}`, projectsDir: '/p' })).toBeNull();
    expect(transcriptPathFor({ sessionId: ID, projectsDir: '/p' })).toBeNull();
  });

  it('finds the projects folder under CLAUDE_CONFIG_DIR when set', () => {
    expect(defaultProjectsDir({}, '/home/u')).toBe('/home/u/.claude/projects');
    expect(defaultProjectsDir({ CLAUDE_CONFIG_DIR: '/etc/claude' }, '/home/u')).toBe('/etc/claude/projects');
  });

  it('takes session ids from UUID basenames when listing, and from any safe name the user gives', () => {
    expect(sessionIdOfListedFile(`${ID}.jsonl`)).toBe(ID);
    expect(sessionIdOfListedFile('agent-1234.jsonl')).toBeNull();
    expect(sessionIdOfListedFile(`${ID}.json`)).toBeNull();
    expect(sessionIdOfNamedFile('my-session.jsonl')).toBe('my-session');
    expect(sessionIdOfNamedFile('../x.jsonl')).toBeNull();
    expect(sessionIdOfNamedFile('notes.txt')).toBeNull();
  });

  it('writes and reads dedup keys per segment, .0 included, and the legacy whole-file key', () => {
    expect(segmentKey(ID, 0)).toBe(`_mined-transcripts#f-${ID}.0`);
    expect(parseMinedKey(segmentKey(ID, 12))).toEqual({ sessionId: ID, segment: 12 });
    expect(legacyKey(ID)).toBe(`_mined-transcripts#f-${ID}`);
    expect(parseMinedKey(legacyKey(ID))).toEqual({ sessionId: ID, segment: null });
    expect(parseMinedKey('something-else')).toBeNull();
  });
});
