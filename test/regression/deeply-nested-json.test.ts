import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExcessiveNesting } from '../../src/http-edge/index.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/** Bug (issue 8, item 7): a 10 KB body nested 5,000 levels deep got a 500 from JSON.stringify. */
describe('deeply nested JSON', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
  });
  afterAll(() => h.stop());

  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('is refused at parse time with 400 naming the field', async () => {
    const body = `{"session_id":"s","tool_name":"Read","tool_input":{},"tool_response":${nested(5_000)}}`;
    const res = await fetch(`${h.worker.url}/api/sessions/observations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}` },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'too_deep', field: 'tool_response' });
    expect(h.worker.store.queue.depth()).toBe(0);
  });

  it('accepts ordinary nesting, and is not fooled by brackets inside strings', async () => {
    const deepButFine = `{"a":${nested(20)}}`;
    expect(findExcessiveNesting(deepButFine, 64)).toBeNull();
    expect(findExcessiveNesting(`{"a":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`, 64)).toBeNull();
    expect(findExcessiveNesting(`{"x":1,"deep":{"k":${nested(100)}}}`, 64)).toEqual({ field: 'deep' });
    expect(findExcessiveNesting(nested(100), 64)).toEqual({ field: null });
  });
});
