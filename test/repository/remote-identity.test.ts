import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normaliseRemoteUrl, remoteIdentity, remotesOf } from '../../src/repository/remote-identity.js';
import { makeGitRepo } from '../support/git-repo.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('a repository is named by its remote, the same on every machine', () => {
  it('names every way of writing one remote the same, without user or credentials', () => {
    const forms = [
      'git@github.com:acme/shop.git',
      'ssh://git@github.com:22/acme/shop.git',
      'https://github.com/acme/shop',
      'https://alice:ghp_secretToken123@github.com/acme/shop.git/',
      'https://GitHub.com/acme/shop.git',
      'git://github.com/acme/shop',
    ];
    expect(new Set(forms.map(normaliseRemoteUrl))).toEqual(new Set(['github.com/acme/shop']));
  });

  it('keeps different repositories apart', () => {
    expect(normaliseRemoteUrl('git@github.com:acme/shop.git')).not.toBe(normaliseRemoteUrl('git@github.com:acme/shop-api.git'));
    expect(normaliseRemoteUrl('git@gitlab.com:acme/shop.git')).not.toBe(normaliseRemoteUrl('git@github.com:acme/shop.git'));
  });

  it('gives no name for a remote on this machine or one it cannot read', () => {
    for (const url of ['/srv/git/shop.git', '../shop', 'file:///srv/git/shop.git', '', 'https://host', 'C:\\repos\\shop'])
      expect(normaliseRemoteUrl(url)).toBeNull();
  });

  it('reads remotes from a git config file, origin first', () => {
    const config =
      '[core]\n\tbare = false\n[remote "upstream"]\n\turl = git@github.com:acme/shop.git\n[remote "origin"]\n\turl = https://github.com/alice/shop\n';
    expect(remotesOf(config)).toEqual([
      { name: 'upstream', url: 'git@github.com:acme/shop.git' },
      { name: 'origin', url: 'https://github.com/alice/shop' },
    ]);
  });

  const temp = makeTempDir('memtrace-remote-');
  afterAll(() => temp.cleanup());

  it('finds the remote of a real clone and of its linked worktree alike', () => {
    const repo = path.join(temp.dir, 'shop');
    makeGitRepo(repo);
    execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', 'git@github.com:acme/shop.git']);
    execFileSync('git', ['-C', repo, 'worktree', 'add', '-q', path.join(temp.dir, 'shop-fix')]);
    expect(remoteIdentity(repo)).toBe('github.com/acme/shop');
    expect(remoteIdentity(path.join(temp.dir, 'shop-fix'))).toBe('github.com/acme/shop');
    const bare = path.join(temp.dir, 'plain');
    fs.mkdirSync(bare);
    expect(remoteIdentity(bare)).toBeNull();
  });
});
