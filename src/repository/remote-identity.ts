import path from 'node:path';
import { nodeCheckoutFs, type CheckoutFs } from './checkout.js';

/**
 * Which repository a project is, the same on every machine: its remote's URL, normalised so that
 * every way of writing it (`git@host:o/r.git`, `ssh://git@host:22/o/r`, `https://user:token@host/o/r/`)
 * names it the same (`host/o/r`), and nothing of the user or a credential is kept. Read from
 * git's config file, never by running git. The remote is `origin`, else the first one the config
 * lists. A remote on this machine (a path, `file://`) names no shared repository.
 */

/** The remotes a git config file lists, in its order: `[remote "name"] url = …`. */
export function remotesOf(config: string): Array<{ name: string; url: string }> {
  const remotes: Array<{ name: string; url: string }> = [];
  let current: string | null = null;
  for (const line of config.split('\n')) {
    const section = /^\s*\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section) {
      current = section[1]!.toLowerCase() === 'remote' && section[2] !== undefined ? section[2] : null;
      continue;
    }
    if (current === null) continue;
    const value = /^\s*url\s*=\s*(.*?)\s*$/i.exec(line);
    if (value && !remotes.some((r) => r.name === current)) remotes.push({ name: current, url: value[1]!.replace(/^"(.*)"$/, '$1') });
  }
  return remotes;
}

/** `host/owner/repo` for a network remote URL; null for a local path or anything unreadable. */
export function normaliseRemoteUrl(url: string): string | null {
  const raw = url.trim();
  if (raw === '' || raw.length > 2048) return null;
  let host: string;
  let rest: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(raw);
  if (scheme) {
    if (scheme[1]!.toLowerCase() === 'file') return null;
    const slash = scheme[2]!.indexOf('/');
    const authority = slash < 0 ? scheme[2]! : scheme[2]!.slice(0, slash);
    rest = slash < 0 ? '' : scheme[2]!.slice(slash);
    host = authority.slice(authority.lastIndexOf('@') + 1);
    // A bracketed IPv6 host keeps its colons; a port is dropped (ssh on 22 and https on 443 are one repository).
    host = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  } else {
    // scp-like: [user@]host:path, where no slash comes before the colon.
    // A one-letter "host" is a Windows drive (C:\\repos), not a machine.
    const scp = /^(?:[^@/]+@)?([^:/\\]{2,}):(.*)$/.exec(raw);
    if (!scp) return null;
    host = scp[1]!;
    rest = `/${scp[2]!}`;
  }
  host = host.toLowerCase();
  if (host === '' || /\s/.test(host)) return null;
  const segments = rest
    .split(/[?#]/)[0]!
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..')) return null;
  const last = segments.length - 1;
  segments[last] = segments[last]!.replace(/\.git$/i, '');
  if (segments[last] === '') segments.pop();
  if (segments.length === 0) return null;
  return `${host}/${segments.join('/')}`;
}

/** The git directory holding a checkout's config (the common one, for a linked worktree). */
function configFileOf(checkout: string, fs: CheckoutFs): string | null {
  const dotGit = path.join(checkout, '.git');
  const kind = fs.kind(dotGit);
  let gitDir: string;
  if (kind === 'dir') gitDir = dotGit;
  else if (kind === 'file') {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(fs.read(dotGit) ?? '');
    if (!match) return null;
    gitDir = path.resolve(checkout, match[1]!);
    const common = fs.read(path.join(gitDir, 'commondir'))?.trim();
    if (common) gitDir = path.resolve(gitDir, common);
  } else if (fs.kind(path.join(checkout, 'config')) === 'file' && fs.kind(path.join(checkout, 'objects')) === 'dir') gitDir = checkout;
  else return null;
  return path.join(gitDir, 'config');
}

/** The normalised URL of a project's remote (origin first), or null when it has no network remote. */
export function remoteIdentity(project: string, fs: CheckoutFs = nodeCheckoutFs): string | null {
  const file = configFileOf(project, fs);
  const config = file === null ? null : fs.read(file);
  if (config === null) return null;
  const remotes = remotesOf(config);
  const ordered = [...remotes.filter((r) => r.name === 'origin'), ...remotes.filter((r) => r.name !== 'origin')];
  for (const remote of ordered) {
    const normalised = normaliseRemoteUrl(remote.url);
    if (normalised !== null) return normalised;
  }
  return null;
}
