import { describe, expect, it } from 'vitest';
import { usdText } from '../../src/vocabulary/usd-text.js';

describe('an amount in dollars as the status line and the viewer write it', () => {
  it('keeps two significant digits below a dollar, so a small call never reads as free', () => {
    expect(usdText(0.00002)).toBe('$0.000020');
    expect(usdText(0.0012)).toBe('$0.0012');
    expect(usdText(0.3456)).toBe('$0.35');
  });

  it('writes cents from a dollar up, and zero as $0', () => {
    expect(usdText(1.25)).toBe('$1.25');
    expect(usdText(580)).toBe('$580.00');
    expect(usdText(0)).toBe('$0');
  });

  it('says an amount is below the smallest it shows instead of rounding it to nothing', () => {
    expect(usdText(1e-12)).toBe('<$0.00000001');
  });
});
