export { createMemtraceMcpServer } from './server.js';
export { serveMcpStream, type McpStreamSession } from './stream-session.js';
