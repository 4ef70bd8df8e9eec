import fs from 'node:fs';
import path from 'node:path';

/**
 * A project is its repository root (the nearest directory holding `.git`, a folder or a worktree's
 * file), else the full working directory — never the folder's basename, so two repositories
 * named `api` keep separate memory. Cached per cwd: hooks repeat the same few.
 */
export function createProjectResolver(options: { exists?: (p: string) => boolean; maxEntries?: number } = {}) {
  const exists = options.exists ?? ((p: string) => fs.existsSync(p));
  const cache = new Map<string, string>();
  const max = options.maxEntries ?? 1_000;
  return (cwd: string | null | undefined): string | null => {
    if (typeof cwd !== 'string' || cwd.trim() === '') return null;
    const start = path.resolve(cwd);
    const hit = cache.get(start);
    if (hit) return hit;
    let project = start;
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (exists(path.join(dir, '.git'))) {
        project = dir;
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
    if (cache.size >= max) cache.clear();
    cache.set(start, project);
    return project;
  };
}

/** How a project is shown to people: its last path component. */
export function projectLabel(project: string | null): string | null {
  if (!project) return null;
  return path.basename(project) || project;
}
