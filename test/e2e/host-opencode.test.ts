/**
 * SLOW: the real OpenCode 1.18.33 (pinned devDependency `opencode-ai`), offline in a loopback-only
 * network namespace against a fake model API, with memtrace's plugin and MCP server installed by
 * `memtrace install --host opencode` in the user's (scratch) config, talking to a real memtrace
 * worker (test/e2e/in-process-sessions.ts).
 */
import { describe } from 'vitest';
import { inProcessHostUnavailableReason } from '../support/in-process-hosts.js';
import { inProcessSessionTests } from './in-process-sessions.js';

const unavailable = inProcessHostUnavailableReason('opencode');
if (unavailable) console.warn(`skipping the memtrace + OpenCode e2e test: ${unavailable}`);

describe.skipIf(unavailable !== null)('memtrace installed into the real OpenCode', () => {
  inProcessSessionTests('opencode');
});
