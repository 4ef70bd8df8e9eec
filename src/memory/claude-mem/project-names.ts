import path from 'node:path';

/**
 * claude-mem names a project by its folder (`shop`); memtrace by its repository's path. A name
 * maps to the project of the one known checkout (a session's project or checkout in this store)
 * with that folder name; a name several known checkouts share, or none, stays as given. Pure.
 */
export interface ProjectNames {
  /** The project memory goes under, and the checkout when a known one has the name. */
  map(name: string | null): { project: string | null; checkout: string | null };
  /** What each name seen became: a path, or `kept` (no known checkout) or `ambiguous`. */
  report(): Array<{ name: string; to: string | 'kept' | 'ambiguous' }>;
}

export function createProjectNames(known: ReadonlyArray<{ project: string; checkout: string | null }>): ProjectNames {
  const byName = new Map<string, Map<string, string>>();
  const note = (dir: string | null, project: string) => {
    if (!dir || !path.isAbsolute(dir)) return;
    const name = path.basename(dir);
    if (!byName.has(name)) byName.set(name, new Map());
    byName.get(name)!.set(project, dir);
  };
  for (const k of known) {
    note(k.project, k.project);
    note(k.checkout, k.project);
  }
  const seen = new Map<string, string | 'kept' | 'ambiguous'>();
  return {
    map(name) {
      if (name === null || name.trim() === '') return { project: null, checkout: null };
      if (path.isAbsolute(name)) return { project: name, checkout: name };
      const projects = byName.get(name);
      if (projects?.size === 1) {
        const [[project, checkout]] = [...projects] as [[string, string]];
        seen.set(name, project);
        return { project, checkout };
      }
      seen.set(name, projects ? 'ambiguous' : 'kept');
      return { project: name, checkout: null };
    },
    report: () => [...seen].map(([name, to]) => ({ name, to })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}
