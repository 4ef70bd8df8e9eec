export { CLAUDE_HOOK_EVENTS, HOOK_COMMAND_NAMES, forwarderCommand, isMemtraceHookCommand, memtraceHooks, PLUGIN_FORWARDER, shellQuote, type ClaudeHookEvent, type Forwarder, type HooksBlock, type InstallMode } from './hook-definitions.js';
export { installHooks, uninstallHooks, type HookChange, type JsonObject, type MergeResult } from './settings-merge.js';
export { readSettingsFile, renderSettings, settingsDiff, SettingsFileError, writeSettingsFile, type SettingsSnapshot } from './settings-file.js';
export { findPackageRoot, HOOK_FORWARDER, isEphemeralInstall, settingsForwarder } from './package-root.js';
export { packageFacts, renderPluginFiles, REGENERATE_PLUGIN_COMMAND } from './plugin-files.js';
