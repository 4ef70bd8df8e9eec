import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/hosts/index.js';
import { createHostIntake, type HostCall, type HostIntakeDeps } from '../../src/worker/host-intake.js';
import { hostPayload } from '../support/host-fixtures.js';

/** Intake deps that log, in order, what ran inside a transaction and what ran outside one. */
function loggingDeps(log: string[]): HostIntakeDeps {
  let inside = false;
  const where = () => (inside ? 'in transaction' : 'outside');
  return {
    atomically(fn) {
      inside = true;
      try {
        return fn();
      } finally {
        inside = false;
      }
    },
    accept(event: HookEvent) {
      log.push(`accept ${event.kind} ${where()}`);
      return { status: 'queued', id: 1 };
    },
    contextFor() {
      log.push(`context ${where()}`);
      return '# memory';
    },
    keepContext: () => log.push(`keep ${where()}`),
    adapterDeps: () => ({
      exitCodeOf() {
        log.push(`transcript read ${where()}`);
        return 1;
      },
    }),
    seen: (call) => log.push(`seen ${call.status} ${where()}`),
  };
}

const codexCall = (event: string, payload: Record<string, unknown>): HostCall => ({
  host: 'codex',
  event,
  via: 'settings',
  body: { text: JSON.stringify(payload) },
  hookElapsedMs: () => null,
});

describe('a hook call through the host intake', () => {
  it('reads the transcript before the write, and writes the event and its count in one transaction', () => {
    const log: string[] = [];
    const shell = { ...hostPayload('codex', 'captured', '10-PostToolUse'), transcript_path: '/rollout.jsonl' };
    const result = createHostIntake(loggingDeps(log)).handle(codexCall('PostToolUse', shell), 0);
    expect(result).toMatchObject({ status: 202, kind: 'post_tool_use_failure' });
    expect(log).toEqual(['transcript read outside', 'accept post_tool_use_failure in transaction', 'seen 202 in transaction']);
  });

  it('counts a payload that is not JSON in a transaction, with nothing accepted', () => {
    const log: string[] = [];
    const call = { ...codexCall('PostToolUse', {}), body: { text: '{"session_id": ' } };
    expect(createHostIntake(loggingDeps(log)).handle(call, 0)).toMatchObject({ status: 400, unreadable: true });
    expect(log).toEqual(['seen 400 in transaction']);
  });

  it('builds and keeps a session start’s context after the commit', () => {
    const log: string[] = [];
    const result = createHostIntake(loggingDeps(log)).handle(codexCall('SessionStart', hostPayload('codex', 'captured', '01-SessionStart')), 0);
    expect(result.output).toContain('# memory');
    expect(log).toEqual(['accept session_start in transaction', 'seen 202 in transaction', 'context outside', 'keep outside']);
  });
});
