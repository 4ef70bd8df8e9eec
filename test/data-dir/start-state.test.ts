import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claimStartAttempt,
  clearStartState,
  readStartState,
  recordStartFailure,
  recordWorkerRunning,
  startAttemptDue,
  startProblemLine,
  withAttempt,
  type StartFailure,
} from '../../src/data-dir/start-state.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.parse('2026-03-04T05:06:07.000Z');
const failure = (at: number): StartFailure => ({
  reason: 'store_corrupt',
  detail: 'the store /d/memtrace.db is damaged (SQLITE_NOTADB)',
  fix: "move it aside and run 'memtrace worker start'",
  version: '0.2.0',
  at: new Date(at).toISOString(),
});

describe('the start schedule every hook shares', () => {
  it('waits 15 s after a first attempt, then doubles, up to half an hour', () => {
    let state = null;
    const waits: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      state = withAttempt(state, T0);
      waits.push((Date.parse(state.next_attempt_at!) - T0) / 1000);
    }
    expect(waits).toEqual([15, 30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
    expect(startAttemptDue(state, T0 + 1_799_000)).toBe(false);
    expect(startAttemptDue(state, T0 + 1_800_000)).toBe(true);
    expect(startAttemptDue(null, T0)).toBe(true);
  });

  it('allows 20 hook firings within 15 s one attempt, and counts it in the data dir', () => {
    const temp = makeTempDir();
    try {
      const claimed = Array.from({ length: 20 }, (_, i) => claimStartAttempt(temp.dir, T0 + i * 500)).filter((s) => s !== null);
      expect(claimed).toHaveLength(1);
      expect(readStartState(temp.dir)).toMatchObject({ attempts: 1, last_attempt_at: new Date(T0).toISOString() });
      expect(claimStartAttempt(temp.dir, T0 + 15_000)).toMatchObject({ attempts: 2 });
      // Asked for by the user: not held back, still counted.
      expect(claimStartAttempt(temp.dir, T0 + 15_001, { force: true })).toMatchObject({ attempts: 3 });
    } finally {
      temp.cleanup();
    }
  });

  it('lets one of two hooks deciding at once make the attempt, and takes over a claim a dead hook left', () => {
    const temp = makeTempDir();
    try {
      const claim = path.join(temp.dir, 'worker-start.claim');
      fs.writeFileSync(claim, '');
      expect(claimStartAttempt(temp.dir, Date.now())).toBeNull();
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(claim, old, old);
      expect(claimStartAttempt(temp.dir, Date.now())).toMatchObject({ attempts: 1 });
      expect(fs.existsSync(claim)).toBe(false);
    } finally {
      temp.cleanup();
    }
  });

  it('keeps why a start failed until a worker runs, and then until it has run a while', () => {
    const temp = makeTempDir();
    try {
      claimStartAttempt(temp.dir, T0);
      recordStartFailure(temp.dir, failure(T0 + 800));
      expect(readStartState(temp.dir)).toMatchObject({ attempts: 1, last_error: { reason: 'store_corrupt' }, running_since: null });
      recordWorkerRunning(temp.dir, T0 + 20_000);
      // A crash right after this start still backs off: the attempts stay until the start holds.
      expect(readStartState(temp.dir)).toMatchObject({ attempts: 1, last_error: null, running_since: new Date(T0 + 20_000).toISOString() });
      clearStartState(temp.dir);
      expect(readStartState(temp.dir)).toBeNull();
    } finally {
      temp.cleanup();
    }
  });

  it('counts a failure recorded with no attempt before it (a worker started by hand)', () => {
    const temp = makeTempDir();
    try {
      recordStartFailure(temp.dir, failure(T0));
      expect(readStartState(temp.dir)).toMatchObject({ attempts: 1, next_attempt_at: new Date(T0 + 15_000).toISOString() });
    } finally {
      temp.cleanup();
    }
  });

  it('reads a damaged state file as nothing to say, so a hook is never stopped by it', () => {
    const temp = makeTempDir();
    try {
      fs.writeFileSync(path.join(temp.dir, 'worker-start.json'), '{"attempts":');
      expect(readStartState(temp.dir)).toBeNull();
      expect(claimStartAttempt(temp.dir, T0)).toMatchObject({ attempts: 1 });
    } finally {
      temp.cleanup();
    }
  });
});

describe('the line that says what keeps the worker from starting', () => {
  it('names what is wrong, what to do, and when hooks try again', () => {
    const state = { ...withAttempt(null, T0), last_error: failure(T0) };
    const line = startProblemLine(state, '/d', T0 + 1_000)!;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('cannot start: the store /d/memtrace.db is damaged (SQLITE_NOTADB)');
    expect(line).toContain("To fix: move it aside and run 'memtrace worker start'");
    expect(line).toContain('next try at 05:06:22 UTC');
  });

  it('says nothing while a worker runs, or after one attempt that has not failed yet', () => {
    expect(startProblemLine(null, '/d', T0)).toBeNull();
    expect(startProblemLine(withAttempt(null, T0), '/d', T0)).toBeNull();
    expect(startProblemLine({ ...withAttempt(null, T0), last_error: failure(T0), running_since: new Date(T0).toISOString() }, '/d', T0)).toBeNull();
  });

  it('points at the worker output when attempts failed without a reason', () => {
    const twice = withAttempt(withAttempt(null, T0), T0 + 20_000);
    expect(startProblemLine(twice, '/d', T0 + 60_000)).toContain('/d/logs/worker.out');
  });
});
