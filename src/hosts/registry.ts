import { claudeCodeAdapter } from './claude-code/adapter.js';
import type { HostAdapter } from './host-adapter.js';
import type { HostName } from './platforms.js';

/** One adapter per host; a host without one yet is not in the map. */
const ADAPTERS: Partial<Record<HostName, HostAdapter>> = {
  'claude-code': claudeCodeAdapter,
};

export function adapterFor(host: HostName): HostAdapter | null {
  return ADAPTERS[host] ?? null;
}
