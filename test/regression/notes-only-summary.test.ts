import { describe, expect, it } from 'vitest';
import { decideObserverOutput } from '../../src/observer/index.js';

/**
 * Bug (issue 10, the false positive seed 003 describes): a `<summary>` holding only `<notes>`
 * was stored as a summary, though it records no request, investigation, learning, completion
 * or next step.
 */
describe('a summary with notes alone', () => {
  it('is no summary, and alone makes the reply a malformed_xml drop', () => {
    const alone = decideObserverOutput('<summary><notes>routine session</notes></summary>');
    expect(alone).toMatchObject({ outcome: 'dropped', class: 'malformed_xml', summary: null });
  });

  it('leaves the observation beside it parsed', () => {
    const both = decideObserverOutput('<observation type="discovery"><title>Found the leak</title></observation><summary><notes>n</notes></summary>');
    expect(both).toMatchObject({ outcome: 'parsed', summary: null });
    expect(both.observations.map((o) => o.title)).toEqual(['Found the leak']);
  });

  it('still keeps a summary with any substantive field', () => {
    expect(decideObserverOutput('<summary><next_steps>ship</next_steps><notes>n</notes></summary>').summary).toMatchObject({ next_steps: 'ship', notes: 'n' });
  });
});
