import type { Context } from 'hono';
import { parseEvent, type HookEvent, type HookEventKind } from '../hosts/index.js';
import { apiError, findExcessiveNesting, fromZodIssues } from '../http-edge/index.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Hook payloads are shallow; anything deeper is refused before it is parsed into objects. */
const MAX_JSON_DEPTH = 64;

export type BodyResult<T> = { ok: true; value: T } | { ok: false; response: Response };

/** Reads a body into the hook event it carries (its kind chosen from the body); 4xx naming the field otherwise. */
export async function readEvent(
  c: Context,
  kindOf: (body: Record<string, unknown>) => HookEventKind,
): Promise<{ ok: true; event: HookEvent } | { ok: false; response: Response }> {
  const body = await readJsonObject(c);
  if (!body.ok) return body;
  const parsed = parseEvent(kindOf(body.value), body.value);
  return parsed.ok ? parsed : { ok: false, response: c.json(fromZodIssues(parsed.issues), 400) };
}

async function readJsonObject(c: Context): Promise<BodyResult<Record<string, unknown>>> {
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    // The edge (limitBody) already refused anything over MAX_BODY_BYTES; this is a client gone mid-body.
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
  return { ok: true, value: json as Record<string, unknown> };
}
