export { importClaudeMem, type ClaudeMemImportReport } from './import-claude-mem.js';
export { PeerDatabaseError } from './peer-database.js';
