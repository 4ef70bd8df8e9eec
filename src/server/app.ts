import { Hono, type Context } from 'hono';
import { apiError, loopbackGuards } from '../http-edge/index.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import type { HookEvent, HookEventKind } from '../hosts/index.js';
import { MAX_BODY_BYTES, readEvent } from './read-body.js';

/** What the routes need from the rest of the worker; each piece is passed in. */
export interface WorkerServices {
  clock: Clock;
  log: Logger;
  version: string;
  /** The primary observer's name now (an agent CLI may appear while the worker runs). */
  providerName(): string;
  /** The bound port (known only after listen when 0 was asked for). */
  port(): number;
  /** The install's API token (DATA_DIR/auth-token). */
  token(): string;
  /** Takes one hook event; a queued one is committed before this returns (the reply is sent only after). */
  accept(event: HookEvent, nowMs: number): { status: 'ok' | 'unknown_session' | 'ignored' } | { status: 'queued' | 'duplicate'; id: number };
  injectContext(input: {
    project: string | null;
    cwd: string | null;
    budgetRaw: string | undefined;
    nowMs: number;
  }): { ok: true; markdown: string } | { ok: false; field: string; message: string };
  /** /health: status, queue depth, degraded reasons; nothing private (no ids, paths or content). */
  health(): { status: 'ok' | 'degraded' } & Record<string, unknown>;
  telemetryStatus(nowMs: number): unknown;
  reportError(error: unknown, stage: 'server'): void;
}

const MAX_QUERY_PATH = 4096;

export function createApp(services: WorkerServices): Hono {
  const app = new Hono();

  app.use('*', ...loopbackGuards({ port: services.port, token: { prefix: '/api/', value: services.token }, maxBodyBytes: MAX_BODY_BYTES, requireJson: true }));

  // The four routes of docs/interfaces.md#routes each carry one or two kinds of hook event.
  app.post('/api/sessions/init', async (c) => {
    const read = await readEvent(c, (body) => (body.prompt != null || body.prompt_id != null ? 'user_prompt_submit' : 'session_start'));
    if (!read.ok) return read.response;
    services.accept(read.event, services.clock.now());
    return c.json({ status: 'ok' }, 200);
  });

  const queued = async (c: Context, kindOf: (body: Record<string, unknown>) => HookEventKind) => {
    const read = await readEvent(c, kindOf);
    if (!read.ok) return read.response;
    const result = services.accept(read.event, services.clock.now());
    return result.status === 'queued'
      ? c.json({ status: 'queued', id: result.id }, 202)
      : c.json({ status: result.status === 'ignored' ? 'ignored' : 'duplicate' }, 200);
  };
  app.post('/api/sessions/observations', (c) => queued(c, (body) => (body.error != null ? 'post_tool_use_failure' : 'post_tool_use')));
  app.post('/api/sessions/summarize', (c) => queued(c, () => 'stop'));

  app.post('/api/sessions/end', async (c) => {
    const read = await readEvent(c, () => 'session_end');
    if (!read.ok) return read.response;
    return c.json({ status: services.accept(read.event, services.clock.now()).status }, 200);
  });

  app.get('/api/context/inject', (c) => {
    const project = c.req.query('project');
    const cwd = c.req.query('cwd');
    for (const [field, value] of [
      ['project', project],
      ['cwd', cwd],
    ] as const) {
      if (value !== undefined && value.length > MAX_QUERY_PATH)
        return c.json(apiError('invalid_field', `${field}: must be at most ${MAX_QUERY_PATH} characters`, field), 400);
    }
    const result = services.injectContext({
      project: project === undefined || project === '' ? null : project,
      cwd: cwd === undefined || cwd === '' ? null : cwd,
      budgetRaw: c.req.query('budget_tokens'),
      nowMs: services.clock.now(),
    });
    if (!result.ok) return c.json(apiError('invalid_field', `${result.field}: ${result.message}`, result.field), 400);
    return c.body(result.markdown, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });

  app.get('/health', (c) => c.json({ version: services.version, provider: services.providerName(), ...services.health() }));

  app.get('/api/telemetry/status', (c) => c.json(services.telemetryStatus(services.clock.now()) as object));

  app.notFound((c) => c.json(apiError('not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));

  app.onError((error, c) => {
    const fault = storageFaultOf(error);
    services.log.error('request failed', { path: new URL(c.req.url).pathname, error: String(error) });
    // A full or failing disk is the server's fault, reported as such; the event was not accepted.
    if (fault)
      return c.json(
        apiError('insufficient_storage', `the worker cannot write to its data dir (${fault}); the event was not stored — free disk space and retry`),
        507,
      );
    services.reportError(error, 'server');
    return c.json(apiError('internal', 'the worker could not handle this request; it was logged'), 500);
  });

  return app;
}
