import http from 'node:http';

export type HookResponse = { ok: true; status: number; body: string } | { ok: false; failure: 'unreachable' | 'timeout'; detail: string };

/**
 * One request to the worker over node:http (no fetch: loading undici costs the hook more than
 * the whole request). The deadline is shared by every call of one hook.
 */
export function createHookTransport(port: number, deadlineAtMs: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body: string | null): Promise<HookResponse> {
      return new Promise((resolve) => {
        const remaining = Math.max(1, deadlineAtMs - Date.now());
        const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: body === null ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', (error) => finish('unreachable', error.message));
        });
        const finish = (failure: 'unreachable' | 'timeout', detail: string) => {
          clearTimeout(timer);
          req.destroy();
          resolve({ ok: false, failure, detail });
        };
        const timer = setTimeout(() => finish('timeout', `no answer within the hook's time budget`), remaining);
        req.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNRESET' && Date.now() >= deadlineAtMs ? 'timeout' : 'unreachable', error.code ?? error.message));
        req.end(body ?? undefined);
      });
    },
    close: () => agent.destroy(),
  };
}
