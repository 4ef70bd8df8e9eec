export { CLAUDE_HOOK_EVENTS, HOOK_COMMAND_NAMES, forwarderCommand, isMemtraceHookCommand, memtraceHooks, PLUGIN_FORWARDER, shellQuote, type ClaudeHookEvent, type Forwarder, type HooksBlock, type InstallMode } from './hook-definitions.js';
export { installHooks, uninstallHooks, type HookChange, type JsonObject, type MergeResult, type OwnsCommand, type WantedHooks } from './settings-merge.js';
export { HOST_HOOK_EVENTS, hostHookCommand, hostHooks, hostMcpEntry, INSTALL_HOSTS, ownsHostHookCommand, type HostMcpEntry, type InstallHost } from './host-hooks.js';
export { hostConfigEdits, hostConfigPaths, trustStep, type FileEdit, type HostAction, type HostConfigPaths } from './host-config-files.js';
export { readFileSnapshot, readSettingsFile, renderSettings, settingsDiff, SettingsFileError, writeSettingsFile, type FileSnapshot, type SettingsSnapshot } from './settings-file.js';
export { findPackageRoot, HOOK_FORWARDER, isEphemeralInstall, settingsForwarder } from './package-root.js';
export { packageFacts, renderPluginFiles, REGENERATE_PLUGIN_COMMAND } from './plugin-files.js';
export { isMemtraceMcpEntry, MCP_SERVER_KEY, memtraceMcpEntry, PLUGIN_MCP_ENTRY, type McpServerEntry } from './mcp-definition.js';
export { installMcpServer, uninstallMcpServer, type McpMergeResult } from './mcp-merge.js';
