/**
 * SLOW: the real Codex CLI 0.169.0 (pinned devDependency), offline in a loopback-only network
 * namespace against its fake API, in a project where `memtrace install --host codex --project`
 * wrote the hooks, run with `codex exec --dangerously-bypass-hook-trust` (the test trusts the
 * project itself), talking to a real memtrace worker (test/e2e/host-sessions.ts).
 */
import { describe } from 'vitest';
import { hostUnavailableReason } from '../support/host-cli.js';
import { hostSessionTests } from './host-sessions.js';

const unavailable = hostUnavailableReason('codex');
if (unavailable) console.warn(`skipping the memtrace + Codex e2e test: ${unavailable}`);

describe.skipIf(unavailable !== null)('memtrace installed into the real Codex CLI', () => {
  hostSessionTests('codex', { shellTool: 'Bash', failingInput: 'cat does-not-exist.txt', toolCalls: 5 });
});
