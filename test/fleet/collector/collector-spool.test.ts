import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectedEvent } from '../../../src/fleet/collector/collected-event.js';
import { openCollectorSpool, SpoolInUseError } from '../../../src/fleet/collector/collector-spool.js';
import { makeTempDir } from '../../support/temp-dir.js';

const event = (i: number): CollectedEvent => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  event: 'e',
  distinctId: 'd',
  timestamp: i,
  properties: { i },
});

describe("the collector's spool", () => {
  it('gives back the oldest files first, whole, up to the events asked for, and only what was not removed', () => {
    const temp = makeTempDir();
    try {
      const spool = openCollectorSpool(temp.dir);
      spool.append([event(1), event(2)]);
      spool.append([event(3)]);
      spool.append([event(4), event(5)]);
      expect(spool.pendingEvents()).toBe(5);
      const first = spool.take(3);
      expect(first.events.map((e) => e.timestamp)).toEqual([1, 2, 3]);
      spool.remove(first.files);
      expect(spool.pendingEvents()).toBe(2);
      // At least one file, even when it holds more than asked for.
      expect(spool.take(1).events.map((e) => e.timestamp)).toEqual([4, 5]);
      spool.close();
    } finally {
      temp.cleanup();
    }
  });

  it('keeps what a crashed run accepted, drops what it was still writing, and admits one collector at a time', () => {
    const temp = makeTempDir();
    try {
      const crashed = openCollectorSpool(temp.dir);
      crashed.append([event(1)]);
      fs.writeFileSync(path.join(temp.dir, '.000000000000001-1-000000002.jsonl.123.abc.tmp'), '{"half');
      expect(() => openCollectorSpool(temp.dir)).toThrow(SpoolInUseError);
      crashed.close();
      const next = openCollectorSpool(temp.dir);
      expect(next.pendingEvents()).toBe(1);
      expect(next.take(10).events.map((e) => e.timestamp)).toEqual([1]);
      expect(fs.readdirSync(temp.dir).filter((n) => n.startsWith('.'))).toEqual([]);
      next.close();
    } finally {
      temp.cleanup();
    }
  });
});
