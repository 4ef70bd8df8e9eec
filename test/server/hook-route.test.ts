import { describe, expect, it } from 'vitest';
import { hookRoute } from '../../src/server/hook-route.js';

describe('the hook route', () => {
  it('names the host and the event of POST /hook/<host>/<event>', () => {
    expect(hookRoute('POST', '/hook/claude-code/post-tool-use')).toEqual({ host: 'claude-code', event: 'post-tool-use' });
    expect(hookRoute('POST', '/hook/gemini-cli/AfterTool?x=1')).toEqual({ host: 'gemini-cli', event: 'AfterTool' });
  });

  it('decodes a percent-encoded segment and keeps one that does not decode as it is', () => {
    expect(hookRoute('POST', '/hook/claude%2Dcode/stop')).toEqual({ host: 'claude-code', event: 'stop' });
    expect(hookRoute('POST', '/hook/claude-code/%E0%A4%A')).toEqual({ host: 'claude-code', event: '%E0%A4%A' });
  });

  it.each([
    ['GET', '/hook/claude-code/stop'],
    ['POST', '/hook/claude-code'],
    ['POST', '/hook/claude-code/stop/extra'],
    ['POST', '/hook//stop'],
    ['POST', '/hook/claude-code/'],
    ['POST', '/hooks/claude-code/stop'],
    ['POST', 'hook/claude-code/stop'],
    ['POST', undefined],
    [undefined, '/hook/claude-code/stop'],
  ])('is no hook route for %s %s', (method, url) => {
    expect(hookRoute(method, url)).toBeNull();
  });
});
