export { apiError, fromZodIssues, type ApiErrorBody } from './api-error.js';
export { loopbackGuards, type LoopbackGuardOptions } from './loopback-guards.js';
export { limitBody, refuseAfterBody, DISCARD_LIMIT_BYTES, DISCARD_DEADLINE_MS, type DiscardLimits } from './body-limit.js';
export { isAllowedHost, isBrowserCrossSite } from './host-guard.js';
export { hasBearerToken } from './bearer-token.js';
export { findExcessiveNesting } from './json-depth.js';
export { listenLoopback, type ListeningServer } from './listen.js';
export { listenUnixSocket, type ListeningSocket } from './listen-socket.js';
