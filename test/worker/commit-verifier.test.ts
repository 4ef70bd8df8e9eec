import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitCommitVerifier } from '../../src/worker/commit-verifier.js';
import { fakeGit, makeGitRepo } from '../support/git-repo.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('checking claimed commits against a real repository', () => {
  const temp = makeTempDir();
  afterAll(() => temp.cleanup());
  const repo = path.join(temp.dir, 'repo');
  const [first, second] = makeGitRepo(repo, 2);
  const verifier = createGitCommitVerifier({ timeoutMs: 5_000 });

  it('keeps a real full and a real short hash, and finds fabricated ones missing, in one git process', async () => {
    const counter = path.join(temp.dir, 'calls');
    const counting = fakeGit(temp.dir, `echo x >> "${counter}"\nexec git "$@"`);
    const v = createGitCommitVerifier({ timeoutMs: 5_000, git: counting });
    const fabricatedFull = 'deadbeef1234567890abcdef1234567890abcdef';
    const verdicts = await v.check(repo, [first!, second!.slice(0, 9), fabricatedFull, 'abc1234']);
    expect(Object.fromEntries(verdicts)).toEqual({ [first!]: 'exists', [second!.slice(0, 9)]: 'exists', [fabricatedFull]: 'missing', abc1234: 'missing' });
    expect(fs.readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
    // Answers are cached per repository: asking again spawns nothing.
    await v.check(repo, [first!, fabricatedFull]);
    expect(fs.readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('calls a blob id claimed as a commit missing', async () => {
    const blob = execFileSync('git', ['rev-parse', 'HEAD:file0.txt'], { cwd: repo, encoding: 'utf8' }).trim();
    expect((await verifier.check(repo, [blob])).get(blob)).toBe('missing');
  });

  it('cannot tell outside a repository, without a cwd, or in a shallow clone', async () => {
    const plain = path.join(temp.dir, 'plain');
    fs.mkdirSync(plain);
    expect((await verifier.check(plain, ['abc1234'])).get('abc1234')).toBe('unverifiable');
    expect((await verifier.check(null, ['abc1234'])).get('abc1234')).toBe('unverifiable');
    const shallow = path.join(temp.dir, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo}`, shallow]);
    const verdicts = await verifier.check(shallow, [first!, second!]);
    expect(Object.fromEntries(verdicts)).toEqual({ [first!]: 'unverifiable', [second!]: 'exists' });
  });

  it.each([
    // Longer than the test may run: an answer at all proves the verifier's own timeout.
    ['hangs', 'sleep 600'],
    ['crashes', 'kill -SEGV $$'],
    ['prints garbage', 'echo "not what git says"; exit 0'],
  ])('makes every claim unverifiable, within the timeout, when git %s', async (_, body) => {
    const v = createGitCommitVerifier({ timeoutMs: 300, git: fakeGit(temp.dir, body) });
    const verdicts = await v.check(repo, [first!, 'abc1234']);
    expect([...verdicts.values()]).toEqual(['unverifiable', 'unverifiable']);
  });

  it('makes every claim unverifiable when git is not installed', async () => {
    const v = createGitCommitVerifier({ timeoutMs: 1_000, git: path.join(temp.dir, 'no-such-git') });
    expect([...(await v.check(repo, [first!])).values()]).toEqual(['unverifiable']);
  });
});
