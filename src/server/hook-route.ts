/**
 * The host and event a hook request names: `POST /hook/<host>/<event>` (each one path segment,
 * percent-decoded; a query is ignored), else null. Pure.
 */
export function hookRoute(method: string | undefined, url: string | undefined): { host: string; event: string } | null {
  if (method !== 'POST' || url === undefined) return null;
  const query = url.indexOf('?');
  const parts = (query === -1 ? url : url.slice(0, query)).split('/');
  if (parts.length !== 4 || parts[0] !== '' || parts[1] !== 'hook') return null;
  const host = decodeSegment(parts[2]!);
  const event = decodeSegment(parts[3]!);
  return host && event ? { host, event } : null;
}

function decodeSegment(segment: string): string | null {
  if (segment === '') return null;
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
