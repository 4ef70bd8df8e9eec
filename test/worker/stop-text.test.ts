/**
 * A Copilot Stop comes before Copilot writes the turn's final text (events.jsonl is flushed in
 * batches, often only at exit): its summary request is held and released with the text once the
 * file holds it, or without it when the hold runs out. Real SQLite, the real captured log, time by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copilotAdapter } from '../../src/hosts/copilot/adapter.js';
import type { HookEvent } from '../../src/hosts/index.js';
import { createMemoryLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { decideBatch, DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { createEventIntake } from '../../src/worker/event-intake.js';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { createStopTextResolver } from '../../src/worker/stop-text.js';
import { hostPayload, hostTranscript } from '../support/host-fixtures.js';
import { manualTime } from '../support/manual-time.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 10, 28, 23, 0, 0);
const SESSION = '7a162ee4-0020-4a52-ae4d-1b371b7653e2';
const FINAL = 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.';
const HOLD_MS = 30_000;

describe('a Copilot Stop waits for its final text', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let eventsFile: string;
  let lines: string[];
  let time: ReturnType<typeof manualTime>;
  const woken: string[] = [];
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    eventsFile = path.join(temp.dir, 'session-state', SESSION, 'events.jsonl');
    fs.mkdirSync(path.dirname(eventsFile), { recursive: true });
    lines = fs.readFileSync(hostTranscript('copilot', 'events.jsonl'), 'utf8').split('\n');
    time = manualTime(T0);
    woken.length = 0;
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  function start() {
    const log = createMemoryLogger();
    const resolver = createStopTextResolver(
      { holdMs: HOLD_MS, pollMs: 250 },
      {
        store,
        clock: time.clock,
        timers: time.timers,
        log,
        redactText: (text) => text.replace('hello world', '[REDACTED:test]'),
        wake: (id) => woken.push(id),
      },
    );
    const intake = createEventIntake({
      store,
      projectOf: createProjectResolver(),
      write: (fn) => fn(),
      wake: () => undefined,
      sessionEnded: () => undefined,
      lastAssistantText: () => null,
      redactEvent: (event) => event,
      redactText: (text) => text,
      stopText: resolver,
    });
    return { resolver, intake, log };
  }
  /** The captured hooks, with agentStop's transcript where this test writes it. */
  const hook = (name: string, event: string, extra: Record<string, unknown> = {}) => {
    const adapted = copilotAdapter.toEvent(event, { ...hostPayload('copilot', 'captured', name), ...extra }, {});
    if (!adapted.ok || !adapted.event) throw new Error('not an event');
    return adapted.event as HookEvent;
  };
  const summary = () =>
    store.db.prepare("SELECT id, payload, not_before FROM queue WHERE kind = 'summary'").get() as { id: number; payload: string; not_before: number };
  const batch = (nowMs: number) =>
    decideBatch(
      store.db
        .prepare("SELECT id, kind, not_before AS notBefore, created_at AS createdAt, 100 AS bytes FROM queue WHERE status = 'pending' ORDER BY id")
        .all() as never,
      nowMs,
      DEFAULT_BATCH_LIMITS,
    );

  it('holds the turn’s batch, then releases the Stop with the text (redacted) as soon as Copilot wrote it', async () => {
    const { intake, resolver } = start();
    intake.accept(hook('01-sessionStart', 'sessionStart'), T0);
    intake.accept(hook('09-postToolUse', 'postToolUse'), T0);
    expect(intake.accept(hook('31-agentStop', 'agentStop', { transcriptPath: eventsFile }), T0)).toMatchObject({ status: 'queued' });
    expect(summary().not_before).toBe(T0 + HOLD_MS);
    // The session keeps the transcript its Stop named, for mining at its end.
    expect(store.sessions.get(SESSION)?.transcriptPath).toBe(eventsFile);
    // The tool event is not observed alone: its batch waits for the held Stop.
    expect(batch(T0 + 1_000)).toMatchObject({ waitUntilMs: expect.any(Number) });
    // Copilot has flushed part of the session: not this turn's end yet.
    fs.writeFileSync(eventsFile, lines.slice(0, 40).join('\n'));
    await time.runUntil(T0 + 1_000);
    expect(JSON.parse(summary().payload).last_assistant_message).toBeUndefined();
    fs.writeFileSync(eventsFile, lines.join('\n'));
    await time.runUntil(T0 + 1_500);
    expect(JSON.parse(summary().payload).last_assistant_message).toBe(FINAL.replace('hello world', '[REDACTED:test]'));
    expect(summary().not_before).toBeLessThanOrEqual(T0 + 1_500);
    expect(woken).toEqual([SESSION]);
    expect(batch(T0 + 1_500)).toMatchObject({ reason: 'turn_end' });
    expect(resolver.pending()).toBe(0);
  });

  it('lets the Stop go without text when the hold runs out, and never waits for one that has its text', async () => {
    const { intake, resolver, log } = start();
    intake.accept(hook('31-agentStop', 'agentStop', { transcriptPath: eventsFile }), T0);
    await time.runUntil(T0 + HOLD_MS + 1_000);
    expect(resolver.pending()).toBe(0);
    expect(batch(T0 + HOLD_MS)).toMatchObject({ reason: 'turn_end' });
    expect(JSON.parse(summary().payload).last_assistant_message).toBeUndefined();
    expect(log.records.some((r) => r.message.includes('not in its transcript in time'))).toBe(true);
    // A replay of the same Stop (from the spool) is the same summary.
    expect(intake.accept(hook('31-agentStop', 'agentStop', { transcriptPath: eventsFile }), T0 + HOLD_MS + 2_000)).toMatchObject({ status: 'duplicate' });
    // A Stop that brings its text (every other host) is not held.
    expect(
      resolver.holdMsFor({
        kind: 'stop',
        session_id: 's',
        transcript_path: eventsFile,
        prompt_id: 'copilot-stop-1',
        last_assistant_message: 'done',
        platform: 'copilot',
        at: T0,
      }),
    ).toBeNull();
    expect(resolver.holdMsFor({ kind: 'stop', session_id: 's', transcript_path: '/t.jsonl', prompt_id: 'p', platform: 'claude-code', at: T0 })).toBeNull();
  });

  it('after a restart, leaves a Stop the observer already tried to its retry backoff', async () => {
    const first = start();
    first.intake.accept(hook('31-agentStop', 'agentStop', { transcriptPath: eventsFile }), T0);
    await time.runUntil(T0 + HOLD_MS + 1_000);
    // The hold ran out; the observer took the summary and its call failed: retried in a minute.
    const claimed = store.queue.claimBatch(SESSION, 10, T0 + HOLD_MS + 1_000, (rows) => rows.map((r) => r.id));
    expect(claimed).toHaveLength(1);
    store.queue.releaseMany([claimed[0]!.id], T0 + HOLD_MS + 61_000, true);
    first.resolver.stop();
    const second = start();
    expect(second.resolver.resume(T0 + HOLD_MS + 2_000)).toBe(0);
    fs.writeFileSync(eventsFile, lines.join('\n'));
    await time.runUntil(T0 + HOLD_MS + 3_000);
    expect(summary().not_before).toBe(T0 + HOLD_MS + 61_000);
  });

  it('resumes waiting after a restart: the held row is the durable part', async () => {
    const first = start();
    first.intake.accept(hook('31-agentStop', 'agentStop', { transcriptPath: eventsFile }), T0);
    first.resolver.stop();
    const second = start();
    expect(second.resolver.resume(T0 + 5_000)).toBe(1);
    fs.writeFileSync(eventsFile, lines.join('\n'));
    await time.runUntil(T0 + 6_000);
    expect(JSON.parse(summary().payload).last_assistant_message).toBe(FINAL.replace('hello world', '[REDACTED:test]'));
  });
});
