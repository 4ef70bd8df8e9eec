import { claudeCodeAdapter } from './claude-code/adapter.js';
import { codexAdapter } from './codex/adapter.js';
import { copilotAdapter } from './copilot/adapter.js';
import { geminiCliAdapter } from './gemini-cli/adapter.js';
import { openCodeAdapter } from './opencode/adapter.js';
import { piAdapter } from './pi/adapter.js';
import type { HostAdapter } from './host-adapter.js';
import type { HostName } from './platforms.js';

/** One adapter per host. */
const ADAPTERS: Record<HostName, HostAdapter> = {
  'claude-code': claudeCodeAdapter,
  'gemini-cli': geminiCliAdapter,
  codex: codexAdapter,
  opencode: openCodeAdapter,
  copilot: copilotAdapter,
  pi: piAdapter,
};

export function adapterFor(host: HostName): HostAdapter | null {
  return ADAPTERS[host] ?? null;
}
