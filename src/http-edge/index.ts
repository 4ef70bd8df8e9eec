export { apiError, fromZodIssues, type ApiErrorBody } from './api-error.js';
export { loopbackGuards, bodyTooLarge, type LoopbackGuardOptions } from './loopback-guards.js';
export { isAllowedHost, isBrowserCrossSite } from './host-guard.js';
export { hasBearerToken } from './bearer-token.js';
export { findExcessiveNesting } from './json-depth.js';
export { listenLoopback, type ListeningServer } from './listen.js';
export { listenUnixSocket, type ListeningSocket } from './listen-socket.js';
