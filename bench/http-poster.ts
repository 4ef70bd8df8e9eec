import http from 'node:http';

/** POSTs JSON to one route over a keep-alive agent; resolves with each request's latency (ms). */
export function createPoster(url: string, token: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const target = new URL(url);
  return {
    post(body: unknown): Promise<number> {
      const text = JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const req = http.request(
          target,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(text) },
          },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 202 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Sends `total` requests at `ratePerS`, whatever the answers' pace; returns the latencies. */
export async function postAtRate(poster: ReturnType<typeof createPoster>, total: number, ratePerS: number, bodyOf: (i: number) => unknown): Promise<number[]> {
  const samples: number[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i += 1) {
    const wait = started + (i * 1000) / ratePerS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(poster.post(bodyOf(i)).then((ms) => void samples.push(ms)));
  }
  await Promise.all(pending);
  return samples;
}
