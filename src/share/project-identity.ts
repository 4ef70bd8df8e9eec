import { execFile } from 'node:child_process';
import { findCheckout } from '../repository/checkout.js';
import { remoteIdentity } from '../repository/remote-identity.js';

/**
 * A shared project's name in the database, the same for every clone of its repository on every
 * machine: the normalised URL of its remote (`host/owner/repo`), else its root commit
 * (`root:<hash>`, the smallest when history has several). Computed once, by `share add` — git may
 * run here, never on the hook path.
 */
export type ProjectIdentity = { ok: true; identity: string; from: 'remote' | 'root-commit' } | { ok: false; reason: string };

export type RunGit = (args: string[], cwd: string) => Promise<string>;

const runGit: RunGit = (args, cwd) =>
  new Promise((resolve, reject) => {
    execFile('git', args, { cwd, timeout: 10_000, encoding: 'utf8', maxBuffer: 1 << 20 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });

export async function projectIdentity(project: string, git: RunGit = runGit): Promise<ProjectIdentity> {
  if (findCheckout(project) === null)
    return {
      ok: false,
      reason: `${project} is not in a git repository; a shared project is a repository (its remote, or its first commit, names it on every machine)`,
    };
  const remote = remoteIdentity(project);
  if (remote !== null) return { ok: true, identity: remote, from: 'remote' };
  let roots: string[];
  try {
    roots = (await git(['rev-list', '--max-parents=0', 'HEAD'], project))
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => /^[0-9a-f]{40,64}$/.test(s));
  } catch {
    roots = [];
  }
  if (roots.length === 0)
    return { ok: false, reason: `${project} has no network remote and no commit yet: add a remote (git remote add origin …) or commit once, then share it` };
  return { ok: true, identity: `root:${roots.sort()[0]}`, from: 'root-commit' };
}
