/**
 * SLOW: the real Gemini CLI 0.61.0 (pinned devDependency), offline in a loopback-only network
 * namespace against its fake API, in a project where `memtrace install --host gemini-cli
 * --project` wrote the hooks, talking to a real memtrace worker (test/e2e/host-sessions.ts).
 */
import { describe } from 'vitest';
import { hostUnavailableReason } from '../support/host-cli.js';
import { hostSessionTests } from './host-sessions.js';

const unavailable = hostUnavailableReason('gemini-cli');
if (unavailable) console.warn(`skipping the memtrace + Gemini CLI e2e test: ${unavailable}`);

describe.skipIf(unavailable !== null)('memtrace installed into the real Gemini CLI', () => {
  hostSessionTests('gemini-cli', { shellTool: 'run_shell_command', failingInput: 'cat does-not-exist.txt', toolCalls: 6 });
});
