import { claudeCodeAdapter } from './claude-code/adapter.js';
import { codexAdapter } from './codex/adapter.js';
import { geminiCliAdapter } from './gemini-cli/adapter.js';
import type { HostAdapter } from './host-adapter.js';
import type { HostName } from './platforms.js';

/** One adapter per host. */
const ADAPTERS: Record<HostName, HostAdapter> = {
  'claude-code': claudeCodeAdapter,
  'gemini-cli': geminiCliAdapter,
  codex: codexAdapter,
};

export function adapterFor(host: HostName): HostAdapter | null {
  return ADAPTERS[host] ?? null;
}
