/**
 * An amount in US dollars as people read it: cents from a dollar up, else two significant digits, so
 * an observer call of $0.00002 does not read as free ($0.0000). Pure.
 */
export function usdText(amount: number): string {
  if (amount === 0) return '$0';
  const size = Math.abs(amount);
  if (size >= 1) return `$${amount.toFixed(2)}`;
  if (size < 1e-8) return amount < 0 ? '-<$0.00000001' : '<$0.00000001';
  const decimals = Math.max(2, 1 - Math.floor(Math.log10(size)));
  return `$${amount.toFixed(decimals)}`;
}
