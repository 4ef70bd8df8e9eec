import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCheckout, projectOfCheckout, recordedWorktrees } from '../../src/repository/checkout.js';
import { createProjectResolver, projectLabel } from '../../src/worker/project-of.js';
import { git, makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { makeTempDir } from '../support/temp-dir.js';

describe("a directory's repository, read from git's files", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let repo: ReturnType<typeof makeRepoWithWorktrees>;
  beforeEach(() => {
    temp = makeTempDir('memtrace-checkout-');
    repo = makeRepoWithWorktrees(temp.dir);
  });
  afterEach(() => temp.cleanup());

  it('makes every worktree of a repository (git worktree add) one project, its main checkout', () => {
    expect(findCheckout(repo.main)).toEqual({ checkout: repo.main, project: repo.main });
    expect(findCheckout(repo.feature)).toEqual({ checkout: repo.feature, project: repo.main });
    expect(findCheckout(path.join(repo.fix))).toEqual({ checkout: repo.fix, project: repo.main });
  });

  it('puts a subdirectory in its repository, and a worktree subdirectory in its worktree', () => {
    expect(findCheckout(repo.subdir)).toEqual({ checkout: repo.main, project: repo.main });
    fs.mkdirSync(path.join(repo.feature, 'src', 'deep'), { recursive: true });
    expect(findCheckout(path.join(repo.feature, 'src', 'deep'))).toEqual({ checkout: repo.feature, project: repo.main });
  });

  it('keeps a submodule its own project', () => {
    expect(findCheckout(repo.submodule)).toEqual({ checkout: repo.submodule, project: repo.submodule });
  });

  it('makes the worktrees of a bare repository one project, named after the repository', () => {
    const bare = path.join(temp.dir, 'svc.git');
    git(temp.dir, 'clone', '-q', '--bare', repo.main, bare);
    const wt = path.join(temp.dir, 'svc-main');
    git(bare, 'worktree', 'add', '-q', wt, 'main');
    expect(findCheckout(wt)).toEqual({ checkout: wt, project: bare });
    expect(projectLabel(bare)).toBe('svc');
  });

  it('is null outside any repository, and a broken .git file leaves the checkout its own project', () => {
    const outside = path.join(temp.dir, 'plain');
    fs.mkdirSync(outside);
    expect(findCheckout(outside)).toBeNull();
    const broken = path.join(temp.dir, 'broken');
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, '.git'), 'gitdir: /nowhere/at/all\n');
    expect(projectOfCheckout(broken)).toBe(broken);
  });

  it('lists the worktrees a repository records, also one deleted from disk but not yet pruned', () => {
    fs.rmSync(repo.fix, { recursive: true, force: true });
    expect(recordedWorktrees(repo.main).sort()).toEqual([repo.feature, repo.fix].sort());
    git(repo.main, 'worktree', 'prune');
    expect(recordedWorktrees(repo.main)).toEqual([repo.feature]);
  });

  it('resolves a cwd to its project and checkout, cached, without running git', () => {
    const resolve = createProjectResolver();
    expect(resolve(path.join(repo.feature))).toBe(repo.main);
    expect(resolve.checkoutOf(repo.feature)).toBe(repo.feature);
    expect(resolve(repo.subdir)).toBe(repo.main);
    expect(resolve.checkoutOf(repo.subdir)).toBe(repo.main);
    expect(resolve(null)).toBeNull();
    expect(resolve.checkoutOf('')).toBeNull();
    // Reads only files: with git gone from PATH it answers the same.
    const noGit = createProjectResolver();
    const saved = process.env.PATH;
    process.env.PATH = '';
    try {
      expect(noGit(repo.fix)).toBe(repo.main);
    } finally {
      process.env.PATH = saved;
    }
  });
});
