import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Principle 1: the decision path never reads reply content for keywords. */
describe('decision path', () => {
  it('never mentions poison in the observer, worker or providers', () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/poison/i.test(fs.readFileSync(full, 'utf8'))) hits.push(full);
      }
    };
    for (const dir of ['src/observer', 'src/worker', 'src/providers']) if (fs.existsSync(dir)) walk(dir);
    expect(hits).toEqual([]);
  });
});
