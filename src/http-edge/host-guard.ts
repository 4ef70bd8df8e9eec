/**
 * DNS-rebinding guard: a loopback server still answers any page the browser points at it,
 * so only requests addressed to a loopback name with our own port are served.
 */
export function isAllowedHost(hostHeader: string | undefined | null, port: number): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/**
 * Browsers are never clients of the API: any request that carries an Origin, or that a browser
 * marks as coming from another site, is refused. Hooks and curl send neither header. A page the
 * collector serves may fetch its own resources (same-origin) when the caller allows it.
 */
export function isBrowserCrossSite(
  headers: { origin?: string | undefined; secFetchSite?: string | undefined },
  options: { allowSameOrigin: boolean },
): boolean {
  const site = headers.secFetchSite?.trim().toLowerCase();
  if (site !== undefined && site !== 'none' && !(options.allowSameOrigin && site === 'same-origin')) return true;
  if (headers.origin === undefined) return false;
  // A same-origin navigation form post carries Origin too; only the collector's own page may.
  return !options.allowSameOrigin || site !== 'same-origin';
}
