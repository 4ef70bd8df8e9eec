/**
 * Which LLM provider observed a turn: named in turn records, the spend ledger and telemetry
 * (a closed enum), implemented in src/providers/. The host CLIs observe through the user's own
 * login to Claude Code, Gemini CLI, Codex, OpenCode, Copilot CLI or pi.
 */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'claude-code', 'gemini-cli', 'codex', 'opencode', 'copilot', 'pi', 'replay', 'none'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** The providers that run an agent host's own CLI headless. */
export const HOST_CLI_PROVIDERS = ['claude-code', 'gemini-cli', 'codex', 'opencode', 'copilot', 'pi'] as const;
export type HostCliProviderName = (typeof HOST_CLI_PROVIDERS)[number];
