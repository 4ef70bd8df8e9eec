import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { secretSamples } from './support/secret-samples.js';

describe('the local log', () => {
  it('never writes a secret: messages, fields and errors are redacted before the line is written', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) }, { now: () => 0 });
    const samples = secretSamples(21);
    for (const s of samples) {
      log.warn(`request failed: ${s.text}`, { preview: s.text, nested: { list: [s.text] }, error: new Error(`boom ${s.text}`) });
    }
    const written = lines.join('');
    for (const s of samples) expect(written).not.toContain(s.secret);
    expect(lines).toHaveLength(samples.length);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', msg: expect.stringContaining('[REDACTED:aws_access_key_id]') });
  });

  it('writes a line whose fields JSON cannot hold, without them', () => {
    const lines: string[] = [];
    createLogger({ write: (l) => lines.push(l) }).info('counted', { n: 10n });
    expect(JSON.parse(lines[0]!)).toEqual({ level: 'info', msg: 'counted', note: 'fields not serialisable' });
  });
});
