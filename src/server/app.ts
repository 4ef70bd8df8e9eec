import { Hono } from 'hono';
import { apiError, loopbackGuards } from '../http-edge/index.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { Logger } from '../log.js';
import type { Clock } from '../clock.js';
import { MAX_BODY_BYTES, readBody } from './read-body.js';
import { endBody, initBody, observationBody, summarizeBody, type EndBody, type InitBody } from './schemas.js';

export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './read-body.js';

/** A call made by `memtrace hook`, as its headers describe it; the worker folds its cost. */
export interface HookCallInfo {
  event: string;
  via: string;
  /** When the hook process started (epoch ms), or null if it did not say. */
  startedAtMs: number | null;
  shortened: boolean;
  status: number;
  nowMs: number;
}

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
    init(input: InitBody & { nowMs: number }): void;
    end(input: EndBody & { nowMs: number }): boolean;
  };
  /** Commits the event before returning; the reply is sent only after. */
  enqueue(input: {
    sessionId: string;
    kind: 'observation' | 'summary';
    /** Same key, same session: a duplicate (tool_use_id for tool events). */
    dedupKey: string | null;
    payload: Record<string, unknown>;
    cwd: string | null;
    transcriptPath: string | null;
    nowMs: number;
  }): { status: 'queued' | 'duplicate'; id: number };
  injectContext(input: { project: string | null; cwd: string | null; budgetRaw: string | undefined; nowMs: number }):
    | { ok: true; markdown: string }
    | { ok: false; field: string; message: string };
  hookCall(info: HookCallInfo): void;
  /** A request body with its secrets replaced (SPEC §2, principle 9); counts them. Runs before any write. */
  redact<T>(value: T, nowMs: number): T;
  /** /health: status, queue depth, degraded reasons; nothing private (no ids, paths or content). */
  health(): { status: 'ok' | 'degraded' } & Record<string, unknown>;
  telemetryStatus(nowMs: number): unknown;
  reportError(error: unknown, stage: 'server'): void;
}

const MAX_QUERY_PATH = 4096;

export function createApp(services: WorkerServices): Hono {
  const app = new Hono();

  // Outermost: sees every hook call's final status, refusals included.
  app.use('*', async (c, next) => {
    await next();
    const event = c.req.header('x-memtrace-hook-event');
    if (!event) return;
    const started = Number(c.req.header('x-memtrace-hook-started'));
    services.hookCall({
      event,
      via: c.req.header('x-memtrace-hook-via') ?? 'unknown',
      startedAtMs: Number.isFinite(started) && started > 0 ? started : null,
      shortened: c.req.header('x-memtrace-hook-shortened') === '1',
      status: c.res.status,
      nowMs: services.clock.now(),
    });
  });
  app.use('*', ...loopbackGuards({ port: services.port, token: { prefix: '/api/', value: services.token }, maxBodyBytes: MAX_BODY_BYTES, requireJson: true }));

  app.post('/api/sessions/init', async (c) => {
    const body = await readBody(c, initBody);
    if (!body.ok) return body.response;
    const nowMs = services.clock.now();
    services.sessions.init({ ...services.redact(body.value, nowMs), nowMs });
    return c.json({ status: 'ok' }, 200);
  });

  app.post('/api/sessions/observations', async (c) => {
    const body = await readBody(c, observationBody);
    if (!body.ok) return body.response;
    const nowMs = services.clock.now();
    const v = services.redact(body.value, nowMs);
    const failed = v.error !== undefined && v.error !== null;
    const payload = withoutNulls({
      tool_name: v.tool_name,
      tool_input: v.tool_input,
      ...(failed ? { error: v.error, is_interrupt: v.is_interrupt ?? false } : { tool_response: v.tool_response }),
      duration_ms: v.duration_ms,
      agent_id: v.agent_id,
      prompt_id: v.prompt_id,
      transcript_path: v.transcript_path,
      cwd: v.cwd ?? null,
      at: nowMs,
    });
    const result = services.enqueue({ sessionId: v.session_id, kind: 'observation', dedupKey: v.tool_use_id ?? null, payload, cwd: v.cwd ?? null, transcriptPath: v.transcript_path ?? null, nowMs });
    return result.status === 'duplicate' ? c.json({ status: 'duplicate' }, 200) : c.json({ status: 'queued', id: result.id }, 202);
  });

  app.post('/api/sessions/summarize', async (c) => {
    const body = await readBody(c, summarizeBody);
    if (!body.ok) return body.response;
    const nowMs = services.clock.now();
    const v = services.redact(body.value, nowMs);
    const result = services.enqueue({
      sessionId: v.session_id,
      kind: 'summary',
      // One summary per prompt: a Stop replayed from the spool is the same Stop.
      dedupKey: v.prompt_id ? `summary:${v.prompt_id}` : null,
      payload: withoutNulls({ last_assistant_message: v.last_assistant_message ?? null, prompt_id: v.prompt_id, transcript_path: v.transcript_path, at: nowMs }),
      cwd: null,
      transcriptPath: v.transcript_path ?? null,
      nowMs,
    });
    return result.status === 'duplicate' ? c.json({ status: 'duplicate' }, 200) : c.json({ status: 'queued', id: result.id }, 202);
  });

  app.post('/api/sessions/end', async (c) => {
    const body = await readBody(c, endBody);
    if (!body.ok) return body.response;
    const nowMs = services.clock.now();
    const known = services.sessions.end({ ...services.redact(body.value, nowMs), nowMs });
    return c.json({ status: known ? 'ok' : 'unknown_session' }, 200);
  });

  app.get('/api/context/inject', (c) => {
    const project = c.req.query('project');
    const cwd = c.req.query('cwd');
    for (const [field, value] of [['project', project], ['cwd', cwd]] as const) {
      if (value !== undefined && value.length > MAX_QUERY_PATH) return c.json(apiError('invalid_field', `${field}: must be at most ${MAX_QUERY_PATH} characters`, field), 400);
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

function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([k, v]) => v !== undefined && (v !== null || k === 'cwd' || k === 'last_assistant_message')));
}
