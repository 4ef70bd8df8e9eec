export { memtraceHooks } from './hook-definitions.js';
export { installHooks, uninstallHooks, type HookChange, type JsonObject } from './settings-merge.js';
export { INSTALL_HOSTS, type InstallHost } from './host-hooks.js';
export {
  readFileSnapshot,
  readSettingsFile,
  removeSettingsFile,
  renderSettings,
  settingsDiff,
  SettingsFileError,
  writeSettingsFile,
  type SettingsSnapshot,
} from './settings-file.js';
export { findPackageRoot, HOOK_FORWARDER, isEphemeralInstall, settingsForwarder } from './package-root.js';
export { MCP_SERVER_KEY, memtraceMcpEntry } from './mcp-definition.js';
export { installMcpServer, uninstallMcpServer } from './mcp-merge.js';
export {
  buildNativeForwarder,
  buildNativeForwarderAsync,
  forwarderOutdated,
  nativeForwarderName,
  NATIVE_FORWARDER_LINK,
  NATIVE_FORWARDER_SOURCE,
} from './native-forwarder.js';
export { runProgram, runProgramAsync } from './run-program.js';
