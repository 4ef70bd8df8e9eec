import { describe, expect, it } from 'vitest';
import { peerTime } from '../../src/memory/claude-mem/peer-record.js';

/** The bug: a claude-mem row with no epoch had its zone-less `created_at` read in the machine's time zone. */
describe('a claude-mem row timed only by its ISO text', () => {
  it('is read as UTC when the text names no zone, and an impossible day is no time', () => {
    expect(peerTime(null, '2026-01-31 12:00:00')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(peerTime(0, '2026-01-31T12:00:00.000Z')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(peerTime(null, '2026-02-30 12:00:00')).toBeNull();
  });
});
