/**
 * SLOW: the real pi 0.73.1 (pinned devDependency `@mariozechner/pi-coding-agent`), offline in a
 * loopback-only network namespace against a fake model API, with memtrace's extension (and its
 * memory tools) installed by `memtrace install --host pi` in the user's (scratch) pi folder,
 * talking to a real memtrace worker (test/e2e/in-process-sessions.ts).
 */
import { describe } from 'vitest';
import { inProcessHostUnavailableReason } from '../support/in-process-hosts.js';
import { inProcessSessionTests } from './in-process-sessions.js';

const unavailable = inProcessHostUnavailableReason('pi');
if (unavailable) console.warn(`skipping the memtrace + pi e2e test: ${unavailable}`);

describe.skipIf(unavailable !== null)('memtrace installed into the real pi', () => {
  inProcessSessionTests('pi');
});
