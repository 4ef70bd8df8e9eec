import { afterEach, describe, expect, it } from 'vitest';
import { hookContextTexts, isCompactionRequest, lastToolResults, startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];
const post = (fake: FakeAnthropic, body: unknown, route = '/v1/messages?beta=true') =>
  fetch(`${fake.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The events of a server-sent-events body, as `{event, data}`. */
function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!);
      return { event, data };
    });
}

describe('fake Anthropic API', () => {
  let fake: FakeAnthropic;
  afterEach(async () => {
    await fake?.close();
  });

  it('streams a tool turn whose input_json_delta pieces rebuild the input, then stops for tool_use', async () => {
    fake = await startFakeAnthropic({ script: [{ text: 'Running it.', toolCalls: [{ name: 'Bash', input: { command: 'echo hi' } }] }] });
    const res = await post(fake, { model: 'm', stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'go' }] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[4]!.data.content_block).toMatchObject({ type: 'tool_use', id: 'toolu_fake_1_0', name: 'Bash', input: {} });
    const json = events
      .filter((e) => e.data.delta?.type === 'input_json_delta')
      .map((e) => e.data.delta.partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ command: 'echo hi' });
    expect(events[8]!.data.delta.stop_reason).toBe('tool_use');
    expect(fake.remainingTurns()).toBe(0);
  });

  it('answers a non-streaming request with the whole message', async () => {
    fake = await startFakeAnthropic({ script: [{ text: 'All done.' }] });
    const res = await post(fake, { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }] });
    expect(await res.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'All done.' }],
      stop_reason: 'end_turn',
    });
  });

  it('answers side requests without tools and compaction requests without using up the script', async () => {
    fake = await startFakeAnthropic({ script: [{ text: 'scripted' }], auxiliaryText: 'A title', compactSummary: 'what happened' });
    const side: any = await (await post(fake, { model: 'haiku', messages: [{ role: 'user', content: 'title?' }] })).json();
    const compactBody = {
      model: 'm',
      tools: TOOLS,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Your task is to create a detailed summary of the conversation so far … <summary></summary>' }] },
      ],
    };
    expect(isCompactionRequest(compactBody)).toBe(true);
    const compact: any = await (await post(fake, compactBody)).json();
    expect(side.content[0].text).toBe('A title');
    expect(compact.content[0].text).toContain('<summary>what happened</summary>');
    expect(fake.remainingTurns()).toBe(1);
    expect(fake.requests.map((r) => r.kind)).toEqual(['auxiliary', 'compact']);
  });

  it('answers HEAD / and count_tokens harmlessly and records them', async () => {
    fake = await startFakeAnthropic({ script: [] });
    expect((await fetch(`${fake.url}/`, { method: 'HEAD' })).status).toBe(200);
    const counted: any = await (await post(fake, { model: 'm', messages: [] }, '/v1/messages/count_tokens?beta=true')).json();
    expect(counted.input_tokens).toEqual(expect.any(Number));
    expect(fake.requests.map((r) => `${r.method} ${r.kind}`)).toEqual(['HEAD other', 'POST count_tokens']);
  });

  it('says so once a conversation request arrives after the script ran out', async () => {
    fake = await startFakeAnthropic({ script: [], exhaustedText: 'no more' });
    const reply: any = await (await post(fake, { model: 'm', tools: TOOLS, messages: [] })).json();
    expect(reply.content[0].text).toBe('no more');
    expect(fake.exhausted()).toBe(true);
  });
});

describe('request readers', () => {
  it('finds hook context in system-role messages, as blocks or as a string, and nowhere else', () => {
    const context = 'SessionStart hook additional context: X\n\n# Environment';
    expect(
      hookContextTexts({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: [{ type: 'text', text: context }] },
        ],
      }),
    ).toEqual([context]);
    expect(hookContextTexts({ messages: [{ role: 'system', content: context }] })).toEqual([context]);
    expect(
      hookContextTexts({
        messages: [
          { role: 'user', content: context },
          { role: 'system', content: '# Environment' },
        ],
      }),
    ).toEqual([]);
  });

  it('reads the tool results of the last user message', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'x' }] },
        { role: 'assistant', content: [] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'b', content: 'y', is_error: true },
            { type: 'text', text: 'more' },
          ],
        },
      ],
    };
    expect(lastToolResults(body)).toEqual([{ type: 'tool_result', tool_use_id: 'b', content: 'y', is_error: true }]);
  });
});
