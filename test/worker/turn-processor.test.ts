import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/log.js';
import type { CompletionResult } from '../../src/providers/types.js';
import { openStore, type QueueMessage, type Store } from '../../src/store/index.js';
import { processTurn } from '../../src/worker/turn-processor.js';
import type { TurnRecord } from '../../src/observer/turn-record.js';
import { LEGACY_CLOSURE_PHRASES, VALID_REPLY, observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';

describe('processTurn', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let log: ReturnType<typeof createMemoryLogger>;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    log = createMemoryLogger();
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  let nextToolUse = 0;
  function claimFresh(sessionId = 's1', fields: Parameters<typeof queuedToolUse>[1] = { tool_name: 'Edit', cwd: null }): QueueMessage {
    store.queue.enqueue({ sessionId, kind: 'observation', toolUseId: `tu${++nextToolUse}`, payload: queuedToolUse(sessionId, fields), nowMs: 1 });
    const message = store.queue.claimNext(sessionId, 2);
    if (!message) throw new Error('nothing to claim');
    return message;
  }
  const reply = (text: string, usage: CompletionResult['usage'] = { inputTokens: 900, outputTokens: 300 }): CompletionResult => ({
    text,
    usage,
    costUsd: usage ? 0.002 : null,
    model: 'claude-haiku-4-5',
  });
  const run = (message: QueueMessage, text: string, extra: { onCommit?: (t: TurnRecord) => void; usage?: CompletionResult['usage'] } = {}) =>
    processTurn(
      { store, log, ...(extra.onCommit ? { onCommit: extra.onCommit } : {}) },
      {
        messages: [message],
        session: { project: 'demo' },
        reply: reply(text, extra.usage === undefined ? undefined : extra.usage),
        provider: 'anthropic',
        promptVersion: 'obs-v1',
        durationMs: 42,
        nowMs: 5_000,
      },
    );

  it('parses valid XML, persists it with provenance and confirms the message', () => {
    const message = claimFresh();
    const turn = run(message, VALID_REPLY);
    expect(turn).toMatchObject({
      outcome: 'ok',
      parse: 'parsed',
      outputClass: 'xml',
      observationsCreated: 1,
      observationsByType: { bugfix: 1 },
      tokens: { input: 900, output: 300 },
    });
    const [stored] = store.observations.recentForProject('demo', 10);
    expect(stored).toMatchObject({
      type: 'bugfix',
      sourceMessageIds: [message.id],
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      promptVersion: 'obs-v1',
      discoveryTokens: 1200,
    });
    expect(store.queue.depth()).toBe(0);
  });

  it('drops an empty reply as idle, confirms it, and the session goes on', () => {
    const first = claimFresh();
    expect(run(first, '   ')).toMatchObject({ parse: 'dropped', outputClass: 'idle', observationsCreated: 0 });
    const second = claimFresh();
    expect(run(second, VALID_REPLY).parse).toBe('parsed');
    expect(store.queue.depth()).toBe(0);
  });

  it('drops prose and confirms only its own message, logging a short preview', () => {
    const other = claimFresh('s2');
    const message = claimFresh();
    const prose = `I reviewed the change. ${'It looks fine. '.repeat(50)}`;
    expect(run(message, prose)).toMatchObject({ parse: 'dropped', outputClass: 'prose' });
    expect(store.observations.count()).toBe(0);
    expect(store.queue.get(other.id)).not.toBeNull();
    const line = log.records.find((r) => r.message === 'observer output dropped');
    expect(line?.fields).toMatchObject({ class: 'prose', message_ids: [message.id] });
    expect(String(line?.fields?.preview).length).toBeLessThanOrEqual(200);
  });

  it.each(LEGACY_CLOSURE_PHRASES)('drops "%s" in prose like any prose and processes the next message normally', (phrase) => {
    const message = claimFresh();
    expect(run(message, `Sorry — ${phrase}.`)).toMatchObject({ parse: 'dropped', outputClass: 'prose' });
    const next = claimFresh();
    expect(next.sessionId).toBe('s1');
    expect(run(next, VALID_REPLY)).toMatchObject({ parse: 'parsed', observationsCreated: 1 });
  });

  it.each(LEGACY_CLOSURE_PHRASES)('persists "%s" inside a valid narrative', (phrase) => {
    const message = claimFresh();
    run(message, observationXml({ type: 'discovery', title: 'Limit message', narrative: `The tool says "${phrase}".` }));
    expect(store.observations.recentForProject('demo', 1)[0]?.narrative).toContain(phrase);
  });

  it('persists nothing and confirms nothing when the transaction fails midway', () => {
    const message = claimFresh();
    expect(() =>
      run(message, VALID_REPLY, {
        onCommit: () => {
          throw new Error('disk full');
        },
      }),
    ).toThrow('disk full');
    expect(store.observations.count()).toBe(0);
    expect(store.queue.get(message.id)).not.toBeNull();
  });

  it('refuses to confirm a message that is not claimed', () => {
    store.queue.enqueue({ sessionId: 's1', kind: 'observation', toolUseId: 'x', payload: queuedToolUse('s1'), nowMs: 1 });
    const unclaimed = store.queue.get(1)!;
    expect(() => run(unclaimed, VALID_REPLY)).toThrow(/not claimed/);
    expect(store.observations.count()).toBe(0);
  });

  it('leaves discovery tokens unknown when the provider reported no usage', () => {
    const turn = run(claimFresh(), VALID_REPLY, { usage: null });
    expect(turn.tokens).toBeNull();
    expect(store.observations.recentForProject('demo', 1)[0]?.discoveryTokens).toBeNull();
  });

  it('shares a turn’s tokens across its observations', () => {
    run(claimFresh(), `${observationXml({ type: 'feature', title: 'a' })}${observationXml({ type: 'feature', title: 'b' })}`);
    const shares = store.observations.recentForProject('demo', 5).map((o) => o.discoveryTokens);
    expect(shares).toEqual([600, 600]);
  });

  it('keeps observations when the reply also skips the summary', () => {
    expect(run(claimFresh(), `${VALID_REPLY}<skip_summary reason="x"/>`).observationsCreated).toBe(1);
  });
});
