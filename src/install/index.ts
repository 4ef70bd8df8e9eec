export { CLAUDE_HOOK_EVENTS, HOOK_COMMAND_NAMES, isMemtraceHookCommand, memtraceHooks, PLUGIN_INVOKE, shellQuote, type ClaudeHookEvent, type HooksBlock, type InstallMode } from './hook-definitions.js';
export { installHooks, uninstallHooks, type HookChange, type JsonObject, type MergeResult } from './settings-merge.js';
export { readSettingsFile, renderSettings, settingsDiff, SettingsFileError, writeSettingsFile, type SettingsSnapshot } from './settings-file.js';
export { findPackageRoot, HOOK_ENTRY, isEphemeralInstall, settingsInvoke } from './package-root.js';
export { packageFacts, renderPluginFiles, REGENERATE_PLUGIN_COMMAND } from './plugin-files.js';
export { isMemtraceMcpEntry, MCP_SERVER_KEY, memtraceMcpEntry, PLUGIN_MCP_ENTRY, type McpServerEntry } from './mcp-definition.js';
export { installMcpServer, uninstallMcpServer, type McpMergeResult } from './mcp-merge.js';
