import { describe, expect, it } from 'vitest';
import { describeObserver } from '../../src/cli/observer-spend.js';

/**
 * Bug: `worker status` printed an observer call that cost $0.00002 as "$0.0000", so a user read
 * their subscription's spend as nothing. Found by running the packed package as a new user.
 */
describe('the observer spend line of worker status', () => {
  it('shows a call of a few thousandths of a cent with its digits', () => {
    const day = { day: '2026-11-27', calls: 1, events: 4, tokens_in: 100, tokens_out: 20, calls_usage_unknown: 0, cost_usd: 0.00002, cost_estimated: false };
    const budget = { day: day.day, tokens_per_day: 1_000_000, counted_today: 120 };
    const lines = describeObserver({ line: 'observer: claude-code', state: 'observing', budget, paused: null, today: day }, { days: [day], sessions: [] });
    expect(lines.join('\n')).toContain('$0.000020');
    expect(lines.join('\n')).not.toContain('$0.0000,');
  });
});
