import http from 'node:http';

/** An HTTP request with full control of headers (fetch will not send a foreign Host). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    // A server may answer (413) and close before a large body is fully written.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const body = options.body === undefined ? null : Buffer.from(options.body);
    if (body && options.headers?.['transfer-encoding'] === 'chunked') {
      let offset = 0;
      const writeNext = () => {
        while (offset < body.length) {
          const chunk = body.subarray(offset, offset + 64 * 1024);
          offset += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', writeNext);
        }
        req.end();
      };
      writeNext();
      return;
    }
    if (body) req.write(body);
    req.end();
  });
}
