import { describe, expect, it } from 'vitest';
import { workerNodeFlags } from '../../src/hook/worker-node-flags.js';

// That a background worker really starts with them: test/cli/worker-control.test.ts.
describe("the background worker's V8 flags", () => {
  it('turns off the memory reducer and caps the young space on the V8 versions known to have those flags', () => {
    for (const v8 of ['11.3.244.8-node.33', '12.4.254.21-node.57', '13.6.233.17-node.63', '14.6.202.34-node.40'])
      expect(workerNodeFlags(v8)).toEqual(['--no-memory-reducer', '--max-semi-space-size=4']);
  });

  it('gives no flag to a V8 it does not know, which would refuse to start on one it lacks', () => {
    for (const v8 of ['15.0.1-node.1', '10.2.154.26-node.36', '', 'unknown']) expect(workerNodeFlags(v8)).toEqual([]);
  });
});
