import nodeFs from 'node:fs';
import path from 'node:path';

/**
 * Which repository a directory belongs to, read from git's own files, never by running git (this
 * runs on the hook's path). A checkout is the directory holding `.git`: a folder in the main
 * checkout, a file (`gitdir: …`) in a linked worktree or a submodule. A worktree's git dir holds a
 * `commondir` file naming the repository's common directory, and the repository's project is its
 * main checkout, so every worktree of a repository is one project. A submodule's git dir has no
 * `commondir`: a submodule stays a project of its own. See docs/memory.md#one-project-per-repository.
 */
export interface CheckoutFs {
  /** 'dir', 'file', or null when nothing is there (or it cannot be read). */
  kind(p: string): 'dir' | 'file' | null;
  /** The file's text, or null. */
  read(p: string): string | null;
  list(p: string): string[];
}

export const nodeCheckoutFs: CheckoutFs = {
  kind(p) {
    try {
      const stat = nodeFs.statSync(p);
      return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : null;
    } catch {
      return null;
    }
  },
  read(p) {
    try {
      return nodeFs.readFileSync(p, 'utf8');
    } catch {
      return null;
    }
  },
  list(p) {
    try {
      return nodeFs.readdirSync(p);
    } catch {
      return [];
    }
  },
};

export interface Checkout {
  /** The checkout's root: the directory holding `.git`. */
  checkout: string;
  /** The repository's project: its main checkout (or its git directory, for a bare repository). */
  project: string;
}

/** A `.git` file is small; anything larger is not one. */
const MAX_GIT_FILE = 4096;

/** The git dir a `.git` file points to (`gitdir: <path>`, relative to the checkout), or null. */
function gitdirOf(checkout: string, fs: CheckoutFs): string | null {
  const text = fs.read(path.join(checkout, '.git'));
  if (text === null || text.length > MAX_GIT_FILE) return null;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return match ? path.resolve(checkout, match[1]!) : null;
}

/** `core.worktree` from a git config file: where a repository whose git dir is not `<checkout>/.git` is checked out. */
function coreWorktree(config: string | null): string | null {
  if (config === null) return null;
  let inCore = false;
  for (const line of config.split('\n')) {
    const section = /^\s*\[([^\]]+)\]/.exec(line);
    if (section) inCore = section[1]!.trim().toLowerCase() === 'core';
    else if (inCore) {
      const value = /^\s*worktree\s*=\s*(.+?)\s*$/i.exec(line);
      if (value) return value[1]!.replace(/^"(.*)"$/, '$1');
    }
  }
  return null;
}

/** The main checkout of a repository from its common directory. */
function mainCheckoutOf(common: string, fs: CheckoutFs): string {
  if (path.basename(common) === '.git') return path.dirname(common);
  const worktree = coreWorktree(fs.read(path.join(common, 'config')));
  if (worktree !== null) return path.resolve(common, worktree);
  return common; // a bare repository: its worktrees share its directory as their project
}

/** The project of a checkout (a directory that holds `.git`). */
export function projectOfCheckout(checkout: string, fs: CheckoutFs = nodeCheckoutFs): string {
  if (fs.kind(path.join(checkout, '.git')) !== 'file') return checkout;
  const gitdir = gitdirOf(checkout, fs);
  if (gitdir === null) return checkout;
  const commondir = fs.read(path.join(gitdir, 'commondir'));
  // No commondir: a submodule (or a separate git dir), its own repository.
  if (commondir === null || commondir.trim() === '') return checkout;
  return mainCheckoutOf(path.resolve(gitdir, commondir.trim()), fs);
}

/** The checkout a directory is in (the nearest one holding `.git`) and its project; null outside any. */
export function findCheckout(dir: string, fs: CheckoutFs = nodeCheckoutFs): Checkout | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (fs.kind(path.join(at, '.git')) !== null) return { checkout: at, project: projectOfCheckout(at, fs) };
    if (path.dirname(at) === at) return null;
  }
}

/**
 * The linked worktrees a main checkout's repository records (`.git/worktrees/<name>/gitdir` holds
 * `<worktree>/.git`), whether or not they are still on disk: how a worktree that was deleted but
 * not yet pruned is still recognised.
 */
export function recordedWorktrees(mainCheckout: string, fs: CheckoutFs = nodeCheckoutFs): string[] {
  const dir = path.join(mainCheckout, '.git', 'worktrees');
  const out: string[] = [];
  for (const name of fs.list(dir)) {
    const text = fs.read(path.join(dir, name, 'gitdir'));
    if (text === null || text.length > MAX_GIT_FILE) continue;
    const target = path.resolve(dir, name, text.trim());
    if (path.basename(target) === '.git') out.push(path.dirname(target));
  }
  return out;
}
