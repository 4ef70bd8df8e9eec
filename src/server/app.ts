import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ZodType } from 'zod';
import { apiError, fromZodIssues } from './api-error.js';
import { isAllowedHost } from './host-guard.js';
import { endBody, initBody, observationBody, summarizeBody } from './schemas.js';
import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** What the routes need from the rest of the worker; each piece is passed in. */
export interface WorkerServices {
  clock: Clock;
  log: Logger;
  version: string;
  providerName: string;
  /** The bound port (known only after listen when 0 was asked for). */
  port(): number;
  sessions: {
    init(input: { sessionId: string; project: string | null; prompt: string | null; platform: string | null; nowMs: number }): void;
    end(sessionId: string, nowMs: number): boolean;
  };
  /** Commits the event before returning; the reply is sent only after. */
  enqueue(input: {
    sessionId: string;
    kind: 'observation' | 'summary';
    toolUseId: string | null;
    payload: unknown;
    cwd: string | null;
    nowMs: number;
  }): { status: 'queued' | 'duplicate'; id: number };
  injectContext(input: { project: string | null; budgetRaw: string | undefined; nowMs: number }):
    | { ok: true; markdown: string }
    | { ok: false; field: string; message: string };
  health(): { queue_depth: number; paused_sessions: number; in_flight: number };
  telemetryStatus(nowMs: number): unknown;
  reportError(error: unknown, stage: 'server'): void;
}

export function createApp(services: WorkerServices): Hono {
  const app = new Hono();

  app.use('*', async (c, next) => {
    if (!isAllowedHost(c.req.header('host'), services.port())) {
      return c.json(apiError('misdirected_request', 'Host must be 127.0.0.1, localhost or [::1] with the worker port', 'Host'), 421);
    }
    await next();
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(apiError('body_too_large', `request bodies are limited to ${MAX_BODY_BYTES} bytes`), 413),
    }),
  );

  app.post('/api/sessions/init', async (c) => {
    const body = await readBody(c, initBody);
    if (!body.ok) return body.response;
    const { session_id, project, prompt, platform } = body.value;
    services.sessions.init({
      sessionId: session_id,
      project: project ?? null,
      prompt: prompt ?? null,
      platform: platform ?? null,
      nowMs: services.clock.now(),
    });
    return c.json({ status: 'ok' }, 200);
  });

  app.post('/api/sessions/observations', async (c) => {
    const body = await readBody(c, observationBody);
    if (!body.ok) return body.response;
    const { session_id, tool_use_id, tool_name, tool_input, tool_response, cwd } = body.value;
    const nowMs = services.clock.now();
    const result = services.enqueue({
      sessionId: session_id,
      kind: 'observation',
      toolUseId: tool_use_id ?? null,
      payload: { tool_name, tool_input, tool_response, cwd: cwd ?? null, at: nowMs },
      cwd: cwd ?? null,
      nowMs,
    });
    return result.status === 'duplicate' ? c.json({ status: 'duplicate' }, 200) : c.json({ status: 'queued', id: result.id }, 202);
  });

  app.post('/api/sessions/summarize', async (c) => {
    const body = await readBody(c, summarizeBody);
    if (!body.ok) return body.response;
    const nowMs = services.clock.now();
    const result = services.enqueue({
      sessionId: body.value.session_id,
      kind: 'summary',
      toolUseId: null,
      payload: { last_assistant_message: body.value.last_assistant_message ?? null, at: nowMs },
      cwd: null,
      nowMs,
    });
    return c.json({ status: 'queued', id: result.id }, 202);
  });

  app.post('/api/sessions/end', async (c) => {
    const body = await readBody(c, endBody);
    if (!body.ok) return body.response;
    const known = services.sessions.end(body.value.session_id, services.clock.now());
    return c.json({ status: known ? 'ok' : 'unknown_session' }, 200);
  });

  app.get('/api/context/inject', (c) => {
    const project = c.req.query('project');
    if (project !== undefined && project.length > 512) {
      return c.json(apiError('invalid_field', 'project: must be at most 512 characters', 'project'), 400);
    }
    const result = services.injectContext({
      project: project === undefined || project === '' ? null : project,
      budgetRaw: c.req.query('budget_tokens'),
      nowMs: services.clock.now(),
    });
    if (!result.ok) return c.json(apiError('invalid_field', `${result.field}: ${result.message}`, result.field), 400);
    return c.body(result.markdown, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });

  app.get('/health', (c) => {
    const h = services.health();
    return c.json({
      status: h.paused_sessions > 0 ? 'degraded' : 'ok',
      version: services.version,
      queue_depth: h.queue_depth,
      provider: services.providerName,
      paused_sessions: h.paused_sessions,
      in_flight: h.in_flight,
    });
  });

  app.get('/api/telemetry/status', (c) => c.json(services.telemetryStatus(services.clock.now()) as object));

  app.notFound((c) => c.json(apiError('not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));

  app.onError((error, c) => {
    services.reportError(error, 'server');
    services.log.error('request failed', { path: new URL(c.req.url).pathname, error: String(error) });
    return c.json(apiError('internal', 'the worker could not handle this request; it was logged'), 500);
  });

  return app;
}

type BodyResult<T> = { ok: true; value: T } | { ok: false; response: Response };

/** Reads and validates a JSON body; every failure is a 4xx naming the field, never a 500. */
async function readBody<T>(c: Context, schema: ZodType<T>): Promise<BodyResult<T>> {
  let text: string;
  try {
    text = await c.req.text();
  } catch (error) {
    // bodyLimit aborts the stream when a chunked body grows past the limit.
    if (error instanceof Error && /size|limit/i.test(error.name + error.message)) {
      return { ok: false, response: c.json(apiError('body_too_large', `request bodies are limited to ${MAX_BODY_BYTES} bytes`), 413) };
    }
    return { ok: false, response: c.json(apiError('unreadable_body', 'the request body could not be read'), 400) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, response: c.json(apiError('invalid_json', 'the request body is not valid JSON'), 400) };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, response: c.json(apiError('invalid_body', 'the request body must be a JSON object'), 400) };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, response: c.json(fromZodIssues(parsed.error.issues), 400) };
  return { ok: true, value: parsed.data };
}
