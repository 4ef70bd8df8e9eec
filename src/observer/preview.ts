/** One line of at most `max` characters (code points), for the drop log line only. */
export function previewOutput(reply: string, max = 200): string {
  const collapsed = (typeof reply === 'string' ? reply : '')
    .slice(0, max * 8)
    .replace(/\s+/g, ' ')
    .trim();
  const points = Array.from(collapsed);
  return points.length <= max ? collapsed : `${points.slice(0, max - 1).join('')}…`;
}
