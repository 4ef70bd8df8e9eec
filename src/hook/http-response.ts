/** Status and body of a complete HTTP/1.1 response (plain or chunked); null if it is not one. */
export function parseResponse(raw: Buffer): { status: number; body: string } | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const lines = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!status) return null;
  const chunked = lines.some((l) => /^transfer-encoding:\s*chunked/i.test(l));
  let body = raw.subarray(headEnd + 4);
  if (chunked) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      if (lineEnd === -1) return null;
      const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) return null;
      if (size === 0) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(status[1]), body: body.toString('utf8') };
}
