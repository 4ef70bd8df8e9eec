import { timingSafeEqual } from 'node:crypto';

/**
 * Who may read the viewer: whoever opened the link it printed, once. The URL's token is
 * exchanged on first use for a session cookie (HttpOnly, so page scripts cannot read it;
 * SameSite=Strict, so no other site's page can make the browser send it) and is dead after that,
 * so a link left in shell history or a screenshot opens nothing. Secrets come from `random`.
 */
const VIEWER_COOKIE = 'memtrace_viewer';

/**
 * Browsers keep cookies per host, not per port: two viewers (or the collector) on 127.0.0.1 would
 * see, and overwrite, each other's cookie under one name. Each viewer's carries its port.
 */
export const viewerCookieName = (port: number) => `${VIEWER_COOKIE}_${port}`;

export interface ViewerAuth {
  /** The one-time token for the printed URL. */
  urlToken: string;
  /** The session secret for a valid unused token (the token is spent), else null. */
  exchange(token: string | undefined): string | null;
  /** Whether a Cookie header carries the session secret under this cookie name. */
  admits(cookieHeader: string | undefined, name: string): boolean;
  cookie(secret: string, name: string): string;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function createViewerAuth(random: () => string): ViewerAuth {
  const urlToken = random();
  let spent = false;
  const sessions = new Set<string>();
  return {
    urlToken,
    exchange(token) {
      if (spent || token === undefined || !same(token, urlToken)) return null;
      spent = true;
      const secret = random();
      sessions.add(secret);
      return secret;
    },
    admits(cookieHeader, name) {
      const value = cookieValue(cookieHeader, name);
      return value !== null && [...sessions].some((s) => same(value, s));
    },
    cookie: (secret, name) => `${name}=${secret}; Path=/; HttpOnly; SameSite=Strict`,
  };
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}
