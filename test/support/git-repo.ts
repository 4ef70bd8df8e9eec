import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Fixed dates make the hashes the same on every run, so a test that depends on a hash's shape
// fails every time or never, not once in forty runs.
const FIXED_DATES = { GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };

/** A real git repository with `commits` commits; returns their full hashes, oldest first. */
export function makeGitRepo(dir: string, commits = 1): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, ...FIXED_DATES },
    }).trim();
  git('init', '-q');
  const hashes: string[] = [];
  for (let i = 0; i < commits; i += 1) {
    fs.writeFileSync(path.join(dir, `file${i}.txt`), `content ${i}\n`);
    git('add', '.');
    git('commit', '-qm', `commit ${i}`);
    hashes.push(git('rev-parse', 'HEAD'));
  }
  return hashes;
}

/** An executable script standing in for git (to hang, crash or count calls). */
export function fakeGit(dir: string, body: string): string {
  const file = path.join(dir, `fake-git-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}
