import type { MiddlewareHandler } from 'hono';
import { apiError } from './api-error.js';
import { hasBearerToken } from './bearer-token.js';
import { limitBody, refuseAfterBody } from './body-limit.js';
import { isAllowedHost, isBrowserCrossSite } from './host-guard.js';

export interface LoopbackGuardOptions {
  /** The bound port (known only after listen when 0 was asked for). */
  port(): number;
  /** Requests under `prefix` need `Authorization: Bearer <value()>`. */
  token?: { prefix: string; value(): string };
  maxBodyBytes: number;
  /** POST bodies must be declared application/json (415 otherwise). */
  requireJson: boolean;
  /** Let a page served by this server load its own resources (the collector's dashboard). */
  allowSameOrigin?: boolean;
}

/**
 * The checks every loopback server of memtrace runs before any route, cheapest first:
 * Host (421), browser origin (403), token (401), content type (415), body size (413).
 * Each refusal stores nothing, answers the one error shape, and reads (bounded) and drops the
 * body first so that its sender always gets to read the answer.
 */
export function loopbackGuards(options: LoopbackGuardOptions): MiddlewareHandler[] {
  const gate: MiddlewareHandler = async (c, next) => {
    if (!isAllowedHost(c.req.header('host'), options.port())) {
      return refuseAfterBody(c, c.json(apiError('misdirected_request', 'Host must be 127.0.0.1, localhost or [::1] with this port', 'Host'), 421));
    }
    if (
      isBrowserCrossSite(
        { origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site') },
        { allowSameOrigin: options.allowSameOrigin ?? false },
      )
    ) {
      return refuseAfterBody(c, c.json(apiError('forbidden_origin', 'browsers may not call this server; requests with an Origin are refused', 'Origin'), 403));
    }
    if (options.token && c.req.path.startsWith(options.token.prefix) && !hasBearerToken(c.req.header('authorization'), options.token.value())) {
      return refuseAfterBody(
        c,
        c.json(apiError('unauthorized', 'a valid Authorization: Bearer token is required (the install token in the data dir)', 'Authorization'), 401),
      );
    }
    if (options.requireJson && c.req.method === 'POST' && !isJsonContentType(c.req.header('content-type'))) {
      return refuseAfterBody(c, c.json(apiError('unsupported_media_type', 'POST bodies must be Content-Type: application/json', 'Content-Type'), 415));
    }
    await next();
  };
  return [gate, limitBody(options.maxBodyBytes)];
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
