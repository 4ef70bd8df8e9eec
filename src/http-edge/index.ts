export { apiError, fromZodIssues } from './api-error.js';
export { loopbackGuards } from './loopback-guards.js';
export { limitBody, refuseAfterBody } from './body-limit.js';
export { findExcessiveNesting } from './json-depth.js';
export { listenLoopback, listenLoopbackOrAny, type ListeningServer } from './listen.js';
export { listenUnixSocket, type SocketExchange, type SocketHandler, type SocketReply } from './listen-socket.js';
export type { RequestHead } from './http1-request.js';
