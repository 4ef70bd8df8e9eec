export { createMemtraceMcpServer } from './server.js';
