import { describe, expect, it } from 'vitest';
import { pathKey, reconcileFileClaims } from '../../src/observer/file-claims.js';
import { parsedObservation } from '../support/memory-fixtures.js';

/** Bug (issue 10): `files_modified` was stored on the model's word, with no tool event behind it. */
describe('files_modified without a tool event that wrote the file', () => {
  it('is removed and counted', () => {
    const observation = { ...parsedObservation({ type: 'change', files_modified: ['src/imagined.ts'] }), claims: [] };
    const result = reconcileFileClaims(observation, { written: new Set() }, [], (p) => pathKey(p, '/repo'));
    expect(result.observation.files_modified).toEqual([]);
    expect(result.removed).toBe(1);
  });
});
