#!/usr/bin/env node
// Copied from shared/hosts/{opencode,copilot,pi}/fake-api.mjs (the same file for the three), formatted to this repository's lint.
// Fake model API for running coding-agent CLIs offline. No dependencies (node:http only).
// Speaks the three wire protocols these CLIs use against a custom endpoint:
//   - OpenAI Chat Completions  POST .../chat/completions   (stream or not)
//   - OpenAI Responses         POST .../responses          (SSE)
//   - Anthropic Messages       POST .../messages           (SSE or not)
// plus GET .../models (list) for CLIs that probe the model list.
//
//   node fake-api.mjs [--port 0] [--log FILE] [--project DIR] [--script FILE] [--toolless-main]
//
// Prints `PORT=<n>` on stdout once listening; logs one JSON line per request
// (path, selected headers, body, kind main|side, step, reply) to --log.
//
// The step is derived from the request itself: the number of assistant tool
// calls already present in the history (CLIs resend the whole conversation each
// turn), so retries and side requests never desynchronise it. A request that
// offers no tools is a side request (title generation, summaries...) and gets a
// short text (or a JSON object matching a requested json_schema). With
// --toolless-main, tool-less requests follow the script too (observer-style
// calls with every tool disabled), except title-generator requests.
//
// Script file: JSON array of steps, each one of
//   {"call": "<tool name>", "args": {...}}   -> one tool call, verbatim
//   {"calls": [{"call":..,"args":..}, ...]}  -> parallel tool calls in one turn
//   {"text": "..."}                           -> final assistant message
// "${PROJECT}" inside strings is replaced by --project DIR.
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const port = Number(opt('port', '0'));
const logFile = opt('log', null);
const project = opt('project', process.cwd());
const scriptFile = opt('script', null);
const toollessMain = argv.includes('--toolless-main');

const DEFAULT_SCRIPT = [{ call: 'bash', args: { command: 'echo hi', description: 'say hi' } }, { text: 'Done: the command printed hi.' }];
const script = scriptFile ? JSON.parse(fs.readFileSync(scriptFile, 'utf8')) : DEFAULT_SCRIPT;
const subst = (v) =>
  typeof v === 'string'
    ? v.split('${PROJECT}').join(project)
    : Array.isArray(v)
      ? v.map(subst)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x)]))
        : v;

let seq = 0;
function log(entry) {
  if (!logFile) return;
  fs.appendFileSync(logFile, `${JSON.stringify({ seq: seq++, ts: new Date().toISOString(), ...entry })}\n`);
}
const rid = (p) => `${p}_${crypto.randomBytes(8).toString('hex')}`;

// ---- step selection -------------------------------------------------------
function countCalls(proto, body) {
  if (proto === 'chat') {
    return (body.messages || []).filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length).length;
  }
  if (proto === 'anthropic') {
    return (body.messages || []).filter((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((c) => c.type === 'tool_use')).length;
  }
  if (proto === 'responses') {
    // Parallel calls are adjacent call items (call, call, output, output); sequential
    // turns alternate (call, output, call, output). A turn starts at a call item whose
    // predecessor is not a call item.
    let turns = 0,
      prevCall = false;
    for (const it of body.input || []) {
      const isCall = ['function_call', 'custom_tool_call', 'local_shell_call'].includes(it.type);
      if (isCall && !prevCall) turns++;
      prevCall = isCall;
    }
    return turns;
  }
  return 0;
}
function toolNames(_proto, body) {
  return (body.tools || []).map((t) => t.name || t.function?.name || t.type);
}
// Returns {step, calls:[{name,args}]|null, text|null}
function decide(proto, body) {
  const names = toolNames(proto, body);
  const isTitle = /title generator|generate a (short |brief )?title/i.test(JSON.stringify(body.system ?? body.messages?.[0] ?? body.instructions ?? ''));
  if (!names.length && (!toollessMain || isTitle)) {
    const fmt = body.response_format?.json_schema?.schema || body.text?.format?.schema;
    return { kind: 'side', text: fmt ? JSON.stringify(fromSchema(fmt)) : 'Fake title' };
  }
  const step = countCalls(proto, body);
  const s = script[step] ? subst(script[step]) : { text: 'Done.' };
  if (s.text !== undefined) return { kind: 'main', step, text: s.text };
  const calls = (s.calls || [s]).map((c) => ({ name: c.call, args: c.args || {} }));
  const missing = calls.filter((c) => !names.includes(c.name)).map((c) => c.name);
  if (missing.length) return { kind: 'main', step, text: `fake-api: tool(s) ${missing.join(',')} not offered; offered: ${names.join(',')}` };
  return { kind: 'main', step, calls };
}
function fromSchema(s) {
  if (!s || typeof s !== 'object') return {};
  if (s.enum?.length) return s.enum[0];
  const t = Array.isArray(s.type) ? s.type[0] : s.type || (s.properties ? 'object' : 'string');
  if (t === 'object') return Object.fromEntries(Object.entries(s.properties || {}).map(([k, v]) => [k, fromSchema(v)]));
  if (t === 'array') return [];
  if (t === 'boolean') return false;
  if (t === 'number' || t === 'integer') return s.minimum ?? 1;
  return 'ok';
}

// ---- OpenAI Chat Completions ----------------------------------------------
function chatReply(res, body, d) {
  const id = rid('chatcmpl');
  const model = body.model || 'fake-model';
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  const toolCalls = d.calls
    ? d.calls.map((c, i) => ({ index: i, id: rid('call'), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
    : null;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = { role: 'assistant', content: d.text ?? null };
    if (toolCalls) message.tool_calls = toolCalls.map(({ index, ...t }) => t);
    return json(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (choices, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (toolCalls) chunk([{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }]);
  else chunk([{ index: 0, delta: { content: d.text }, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: finish }], { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

// ---- OpenAI Responses -------------------------------------------------------
function responsesReply(res, body, d) {
  const model = body.model || 'fake-model';
  const items = d.calls
    ? d.calls.map((c) => ({ type: 'function_call', id: rid('fc'), call_id: rid('call'), name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }))
    : [{ type: 'message', id: rid('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: d.text, annotations: [] }] }];
  const respId = rid('resp');
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 110,
  };
  const evs = [{ type: 'response.created', response: { id: respId, object: 'response', status: 'in_progress', model, output: [] } }];
  items.forEach((item, i) => {
    evs.push({ type: 'response.output_item.added', output_index: i, item });
    if (item.type === 'message')
      evs.push({ type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: item.content[0].text });
    evs.push({ type: 'response.output_item.done', output_index: i, item });
  });
  evs.push({ type: 'response.completed', response: { id: respId, object: 'response', status: 'completed', model, output: items, usage } });
  if (body.stream === false) return json(res, 200, evs[evs.length - 1].response);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  evs.forEach((ev, n) => {
    res.write(`event: ${ev.type}\ndata: ${JSON.stringify({ ...ev, sequence_number: n })}\n\n`);
  });
  res.end();
}

// ---- Anthropic Messages -----------------------------------------------------
function anthropicReply(res, body, d) {
  const model = body.model || 'fake-model';
  const msgId = rid('msg');
  const blocks = d.calls
    ? d.calls.map((c) => ({ type: 'tool_use', id: `toolu_${crypto.randomBytes(8).toString('hex')}`, name: c.name, input: c.args }))
    : [{ type: 'text', text: d.text }];
  const stop = d.calls ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    return json(res, 200, { id: msgId, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', {
    message: {
      id: msgId,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  blocks.forEach((b, i) => {
    if (b.type === 'text') {
      ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: b.text } });
    } else {
      ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    ev('content_block_stop', { index: i });
  });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  ev('message_stop', {});
  res.end();
}

// ---- server -----------------------------------------------------------------
const HDRS = [
  'user-agent',
  'x-api-key',
  'anthropic-version',
  'anthropic-beta',
  'openai-intent',
  'x-initiator',
  'copilot-integration-id',
  'editor-version',
  'x-request-id',
  'x-interaction-id',
  'x-session-id',
  'session_id',
  'x-stainless-package-version',
  'x-stainless-lang',
  'originator',
  'x-title',
  'http-referer',
];
function pickHeaders(h) {
  const out = {};
  // secrets: keep only the scheme and the last 4 characters, to tell which credential was sent
  const tail = (v) => `<redacted …${String(v).slice(-4)}>`;
  for (const k of HDRS) if (h[k]) out[k] = k === 'x-api-key' ? tail(h[k]) : h[k];
  if (h.authorization) out.authorization = h.authorization.replace(/^(\S+\s+)(.*)$/, (_m, a, b) => a + tail(b));
  return out;
}
function json(res, status, obj) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = { _raw: text.slice(0, 500) };
    }
    const url = new URL(req.url, 'http://x');
    const entry = { method: req.method, path: url.pathname, query: url.search, headers: pickHeaders(req.headers) };
    const p = url.pathname.replace(/\/+$/, '');

    if (req.method === 'GET' && /\/models$/.test(p)) {
      log({ ...entry, kind: 'list-models' });
      return json(res, 200, {
        object: 'list',
        data: [
          { id: 'fake-model', object: 'model', created: 0, owned_by: 'fake', type: 'model', display_name: 'Fake Model', created_at: '2026-01-01T00:00:00Z' },
        ],
        has_more: false,
        first_id: 'fake-model',
        last_id: 'fake-model',
      });
    }
    let proto = null;
    if (req.method === 'POST' && /\/chat\/completions$/.test(p)) proto = 'chat';
    else if (req.method === 'POST' && /\/responses$/.test(p)) proto = 'responses';
    else if (req.method === 'POST' && /\/messages\/count_tokens$/.test(p)) {
      log({ ...entry, kind: 'count-tokens' });
      return json(res, 200, { input_tokens: 100 });
    } else if (req.method === 'POST' && /\/messages$/.test(p)) proto = 'anthropic';
    if (!proto) {
      log({ ...entry, kind: 'unknown', body });
      return json(res, 404, { error: { message: `fake-api: no route for ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
    }
    let d;
    try {
      d = decide(proto, body);
    } catch (e) {
      d = { kind: 'main', text: `fake-api error: ${e.message}` };
    }
    log({ ...entry, proto, kind: d.kind, step: d.step, tool_names: toolNames(proto, body), reply: d.calls || d.text, body });
    if (proto === 'chat') return chatReply(res, body, d);
    if (proto === 'responses') return responsesReply(res, body, d);
    return anthropicReply(res, body, d);
  });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`PORT=${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
