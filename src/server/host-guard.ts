/**
 * DNS-rebinding guard: a loopback worker still answers any page the browser points at it,
 * so only requests addressed to a loopback name with our own port are served.
 */
export function isAllowedHost(hostHeader: string | undefined | null, port: number): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}
