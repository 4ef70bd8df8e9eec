export { createMemtraceMcpServer, MAX_FETCH, MAX_MCP_SEARCH_LIMIT, MCP_SERVER_NAME, type McpDeps } from './server.js';
export { observationText, observationsText, searchText, timelineText } from './tool-text.js';
