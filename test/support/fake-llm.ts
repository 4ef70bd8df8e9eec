import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of a fake provider. */
export type FakeStep =
  | { kind: 'text'; text: string; usage?: { input: number; output: number } | null; costUsd?: number }
  | { kind: 'status'; status: number; errorType?: string; errorCode?: string; headers?: Record<string, string> }
  /** Answers `reply` after `ms` (named so: an object with a `then` key is a thenable to `await`). */
  | { kind: 'delay'; ms: number; reply: FakeStep }
  | { kind: 'garbage' }
  /** Decides the answer from the request body (e.g. echo the input back, longer). */
  | { kind: 'dynamic'; respond: (body: any) => FakeStep };

export interface FakeLlm {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** Steps served in order; when none are left, `fallback` answers. */
  push(...steps: FakeStep[]): void;
  setFallback(step: FakeStep): void;
  close(): Promise<void>;
}

type Wire = 'anthropic' | 'openai';

/** A real HTTP server speaking the Anthropic Messages or OpenAI chat-completions wire format. */
export async function startFakeLlm(wire: Wire, fallback: FakeStep = { kind: 'text', text: '' }): Promise<FakeLlm> {
  const queue: FakeStep[] = [];
  let current = fallback;
  const requests: FakeLlm['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const expected = wire === 'anthropic' ? '/v1/messages' : '/chat/completions';
      if (!req.url?.endsWith(expected)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'not_found_error' } }));
        return;
      }
      let step = queue.shift() ?? current;
      while (step.kind === 'dynamic') step = step.respond(body);
      serve(step, res, (body as { model?: string })?.model ?? 'unknown');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function serve(step: FakeStep, res: http.ServerResponse, model: string): void {
    if (step.kind === 'dynamic') return; // resolved before serve
    if (step.kind === 'delay') {
      const timer = setTimeout(() => serve(step.reply, res, model), step.ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (step.kind === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"not json');
      return;
    }
    if (step.kind === 'status') {
      const error =
        wire === 'anthropic'
          ? { type: 'error', error: { type: step.errorType ?? 'api_error', message: 'scripted failure' } }
          : { error: { message: 'scripted failure', type: step.errorType ?? 'server_error', code: step.errorCode ?? null } };
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers }).end(JSON.stringify(error));
      return;
    }
    const usage = step.usage === undefined ? { input: 1000, output: 200 } : step.usage;
    const payload =
      wire === 'anthropic'
        ? {
            id: 'msg_fake',
            type: 'message',
            role: 'assistant',
            model,
            content: [{ type: 'text', text: step.text }],
            stop_reason: 'end_turn',
            ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output } } : {}),
          }
        : {
            id: 'chatcmpl-fake',
            object: 'chat.completion',
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: step.text }, finish_reason: 'stop' }],
            ...(usage
              ? {
                  usage: {
                    prompt_tokens: usage.input,
                    completion_tokens: usage.output,
                    total_tokens: usage.input + usage.output,
                    ...(step.costUsd === undefined ? {} : { cost: step.costUsd }),
                  },
                }
              : {}),
          };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: wire === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...steps) => queue.push(...steps),
    setFallback: (step) => {
      current = step;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
