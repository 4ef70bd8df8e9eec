// What memtrace's own steps cost on the hook's path outside its worker, for
// hook-floor-server.mjs's `--intake` and `--prelog` (workers `floor_intake` and `floor_prelog` of
// `npm run bench -- hook-cpu`). Runs memtrace's own built code (dist/), so it measures the same
// steps the worker takes:
// - `--intake`: the payload parsed, mapped by Claude Code's adapter, fitted, checked against the
//   one event contract and redacted; nothing written. Any design that keeps "redaction before
//   disk" and "one contract per event" pays this before its reply.
// - `--prelog`: the same, then the redacted event appended to a log file (one write, durable as
//   the store's WAL commits are: in the kernel before the reply); 50 ms after the first event
//   waiting, those since go into memtrace's own store (sessions, the queue and its dedup key, the
//   tool event) in one transaction and the log is emptied. The design "a pre-log, the store
//   written in batches", measured before building it: its CPU per event, batches included.
import fs from 'node:fs';
import path from 'node:path';

const BATCH_MS = 50;

export async function createFloorIntake(dataDir, mode) {
  const dist = path.join(import.meta.dirname, '..', 'dist');
  const load = (file) => import(path.join(dist, file));
  const hosts = await load('hosts/index.js');
  const { redactValueInto } = await load('redaction/index.js');
  const adapter = hosts.adapterFor('claude-code');
  const deps = hosts.adapterDepsFor('claude-code');
  /** The event as the worker would store it, or null when it would not (readable() then stops the floor). */
  const intake = (text) => {
    let payload;
    try {
      payload = JSON.parse(text);
    } catch {
      return null;
    }
    const adapted = adapter.toEvent('PostToolUse', payload, deps);
    if (!adapted.ok || adapted.event === null) return null;
    const fitted = hosts.fitEvent(adapted.event);
    const parsed = hosts.parseEvent(fitted.event.kind, fitted.event);
    if (!parsed.ok) return null;
    return { ...redactValueInto(parsed.event, {}), at: Date.now() };
  };
  if (mode === '--intake') return (text) => void readable(intake(text), text);
  return prelog(dataDir, intake, load);
}

/** A body the worker would not store means this floor measured less than the worker does: said, and the floor stops. */
function readable(event, text) {
  if (event !== null) return event;
  process.stderr.write(`hook-floor-intake: a body that memtrace would not store: ${text.slice(0, 200)}\n`);
  process.exit(1);
}

async function prelog(dataDir, intake, load) {
  const { openStore } = await load('store/index.js');
  const { observerBytes } = await load('observer/event-view.js');
  const { toolEventRecord } = await load('observer/tool-evidence.js');
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  const logPath = path.join(dataDir, 'prelog.jsonl');
  const log = fs.openSync(logPath, 'a', 0o600);
  let pending = [];
  const storeOne = (event, nowMs) => {
    if (!store.sessions.exists(event.session_id)) store.sessions.init({ sessionId: event.session_id, cwd: event.cwd ?? null, nowMs });
    store.queue.enqueue({
      sessionId: event.session_id,
      kind: 'observation',
      toolUseId: event.tool_use_id ?? null,
      payload: event,
      toolEvent: toolEventRecord(event),
      observerBytes: () => observerBytes(event),
      nowMs,
    });
  };
  const flush = store.db.transaction((events, nowMs) => {
    for (const event of events) storeOne(event, nowMs);
  });
  const write = () => {
    flush.immediate(pending, Date.now());
    pending = [];
    fs.ftruncateSync(log, 0);
  };
  return (text) => {
    const event = readable(intake(text), text);
    fs.writeSync(log, `${JSON.stringify(event)}\n`);
    // A timer only while events wait: an idle floor does not wake.
    if (pending.length === 0) setTimeout(write, BATCH_MS);
    pending.push(event);
  };
}
