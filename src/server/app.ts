import { Hono, type Context } from 'hono';
import type { ZodType } from 'zod';
import { apiError, bodyTooLarge, findExcessiveNesting, fromZodIssues, loopbackGuards } from '../http-edge/index.js';
import { storageFaultOf } from '../store/storage-fault.js';
import { endBody, initBody, observationBody, summarizeBody } from './schemas.js';
import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Hook payloads are shallow; anything deeper is refused before it is parsed into objects. */
export const MAX_JSON_DEPTH = 64;

/** What the routes need from the rest of the worker; each piece is passed in. */
export interface WorkerServices {
  clock: Clock;
  log: Logger;
  version: string;
  providerName: string;
  /** The bound port (known only after listen when 0 was asked for). */
  port(): number;
  /** The install's API token (DATA_DIR/auth-token). */
  token(): string;
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
  /** /health: status, queue depth, degraded reasons; nothing private (no ids, paths or content). */
  health(): { status: 'ok' | 'degraded' } & Record<string, unknown>;
  telemetryStatus(nowMs: number): unknown;
  reportError(error: unknown, stage: 'server'): void;
}

export function createApp(services: WorkerServices): Hono {
  const app = new Hono();

  app.use('*', ...loopbackGuards({ port: services.port, token: { prefix: '/api/', value: services.token }, maxBodyBytes: MAX_BODY_BYTES, requireJson: true }));

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

  app.get('/health', (c) => c.json({ version: services.version, provider: services.providerName, ...services.health() }));

  app.get('/api/telemetry/status', (c) => c.json(services.telemetryStatus(services.clock.now()) as object));

  app.notFound((c) => c.json(apiError('not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));

  app.onError((error, c) => {
    const fault = storageFaultOf(error);
    services.log.error('request failed', { path: new URL(c.req.url).pathname, error: String(error) });
    // A full or failing disk is the server's fault, reported as such; the event was not accepted.
    if (fault) return c.json(apiError('insufficient_storage', `the worker cannot write to its data dir (${fault}); the event was not stored — free disk space and retry`), 507);
    services.reportError(error, 'server');
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
    if (error instanceof Error && /size|limit/i.test(error.name + error.message)) return { ok: false, response: bodyTooLarge(c, MAX_BODY_BYTES) };
    return { ok: false, response: c.json(apiError('unreadable_body', 'the request body could not be read'), 400) };
  }
  const tooDeep = findExcessiveNesting(text, MAX_JSON_DEPTH);
  if (tooDeep) {
    const where = tooDeep.field ?? null;
    return { ok: false, response: c.json(apiError('too_deep', `${where ?? 'the body'}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, where), 400) };
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
