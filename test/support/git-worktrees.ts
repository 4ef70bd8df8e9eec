import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeGitRepo } from './git-repo.js';

/** Runs real git in `cwd` (identity and branch fixed, local submodules allowed). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

/**
 * A real repository `<root>/app` with a subdirectory, two linked worktrees made by
 * `git worktree add` (`<root>/app-feature`, `<root>/wt/app-fix`) and a submodule (`app/vendor/lib`,
 * its own repository `<root>/lib`).
 */
export function makeRepoWithWorktrees(root: string) {
  const main = path.join(root, 'app');
  makeGitRepo(main, 1);
  fs.mkdirSync(path.join(main, 'src', 'cart'), { recursive: true });
  const feature = path.join(root, 'app-feature');
  const fix = path.join(root, 'wt', 'app-fix');
  git(main, 'worktree', 'add', '-q', '-b', 'feature', feature);
  git(main, 'worktree', 'add', '-q', '-b', 'fix', fix);
  const lib = path.join(root, 'lib');
  makeGitRepo(lib, 1);
  git(main, 'submodule', 'add', '-q', lib, 'vendor/lib');
  return { main, subdir: path.join(main, 'src', 'cart'), feature, fix, submodule: path.join(main, 'vendor', 'lib') };
}
