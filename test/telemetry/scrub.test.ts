import { describe, expect, it, vi } from 'vitest';
import { allowedKeys, BASE_FIELDS, scrubProperties, TELEMETRY_EVENTS } from '../../src/telemetry/index.js';
import { normalizeModelId } from '../../src/telemetry/index.js';

describe('scrubProperties', () => {
  it('keeps valid schema keys and drops unknown ones', () => {
    const r = scrubProperties('observer_turn_rollup', { count: 3, provider: 'anthropic', prompt: 'secret prompt', cwd: '/home/alice' });
    expect(r?.properties).toEqual({ count: 3, provider: 'anthropic' });
  });

  it('returns null for an unknown event', () => {
    expect(scrubProperties('session_compressed', { count: 1 })).toBeNull();
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a negative count', -1],
    ['a float for an integer', 1.5],
    ['a string for a number', '3'],
    ['an object', { valueOf: (): number => 3 }],
    ['a bigint', 3n],
    ['a symbol', Symbol('x')],
  ])('drops %s', (_, value) => {
    const r = scrubProperties('observer_turn_rollup', { count: value });
    expect(r?.properties).toEqual({});
    expect(r?.dropped).toEqual(['count']);
  });

  it('drops a string over its documented length (80 for a model id) without running its pattern', () => {
    const field = TELEMETRY_EVENTS.find((e) => e.name === 'observer_turn_rollup')!.fields.find((f) => f.key === 'top_model')!;
    if (field.type.kind !== 'pattern') throw new Error('top_model is a pattern field');
    expect(field.type.maxLength).toBe(80);
    const pattern = vi.spyOn(field.type.pattern, 'test');
    try {
      expect(scrubProperties('observer_turn_rollup', { top_model: `claude-${'a'.repeat(200_000)}` })?.properties).toEqual({});
      expect(pattern).not.toHaveBeenCalled();
      // At the bound a well-formed id is read; one character past it, well-formed too, is dropped unread.
      const id = `claude${'-haiku'.repeat(12)}-4`;
      expect(id.length).toBe(80);
      expect(scrubProperties('observer_turn_rollup', { top_model: id })?.properties).toEqual({ top_model: id });
      expect(pattern).toHaveBeenCalledTimes(1);
      expect(scrubProperties('observer_turn_rollup', { top_model: `${id}o` })?.properties).toEqual({});
      expect(pattern).toHaveBeenCalledTimes(1);
    } finally {
      pattern.mockRestore();
    }
  });

  it('never throws on hostile objects', () => {
    const throwing: object = Object.defineProperty({}, 'count', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    const cyclic: Record<string, unknown> = { count: 1 };
    cyclic.self = cyclic;
    const protoPolluted = JSON.parse('{"__proto__": {"count": 5}, "constructor": {"x": 1}}');
    for (const hostile of [throwing, proxy, cyclic, protoPolluted, null, undefined, 42, 'str', [1, 2], Object.create(null), () => 1]) {
      expect(() => scrubProperties('observer_turn_rollup', hostile)).not.toThrow();
    }
    expect(scrubProperties('observer_turn_rollup', cyclic)?.properties).toEqual({ count: 1 });
    expect(scrubProperties('observer_turn_rollup', protoPolluted)?.properties).toEqual({});
  });

  it('allows exactly the schema keys: one source of truth', () => {
    for (const event of TELEMETRY_EVENTS) {
      expect(allowedKeys(event.name).sort()).toEqual([...BASE_FIELDS, ...event.fields].map((f) => f.key).sort());
    }
  });

  it('never names the legacy poisoned class', () => {
    expect(JSON.stringify(TELEMETRY_EVENTS.map((e) => e.fields.map((f) => [f.key, f.type])))).not.toMatch(/poison/i);
  });
});

describe('normalizeModelId', () => {
  it.each([
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5-20251001'],
    ['openai/gpt-oss-120b:free', 'openai/gpt-oss-120b:free'],
    ['Gemini-2.5-Flash-Lite', 'gemini-2.5-flash-lite'],
    ['acme-internal-finetune', 'other'],
    ['/home/alice/models/llama.gguf', 'other'],
    ['claude alice@example.com', 'other'],
  ])('maps %s to %s', (raw, expected) => {
    expect(normalizeModelId(raw)).toBe(expected);
  });

  it('produces only values the schema accepts', () => {
    for (const raw of ['claude-sonnet-4-6', 'other', 'qwen/qwen3-coder:free', 'replay']) {
      expect(scrubProperties('observer_turn_rollup', { top_model: normalizeModelId(raw) })?.properties.top_model).toBe(normalizeModelId(raw));
    }
  });
});
