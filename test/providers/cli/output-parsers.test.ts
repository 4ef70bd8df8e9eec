import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCodeOutput } from '../../../src/providers/cli/claude-code-output.js';
import { readGeminiOutput } from '../../../src/providers/cli/gemini-output.js';
import { readCodexOutput } from '../../../src/providers/cli/codex-output.js';
import { mcpServerNames } from '../../../src/providers/cli/codex.js';
import { readCopilotOutput, readCopilotUsage } from '../../../src/providers/cli/copilot-output.js';
import { readOpenCodeOutput } from '../../../src/providers/cli/opencode-output.js';
import { openCodeMcpNames } from '../../../src/providers/cli/opencode.js';
import { readPiOutput } from '../../../src/providers/cli/pi-output.js';
import { ProviderError } from '../../../src/providers/types.js';

/** What the real CLIs printed, captured offline against fake APIs (Claude Code 2.1.330, Gemini CLI 0.61.0, Codex 0.169.0, OpenCode 1.18.33, Copilot CLI 1.0.102, pi 0.73.1). */
const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/observer-cli', name), 'utf8');
const NOW = Date.UTC(2026, 10, 27, 18, 0);

function failure(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

describe('Claude Code stream-json', () => {
  it('reads the reply, the usage and the cost Claude Code reported', () => {
    const reply = readClaudeCodeOutput(fixture('claude-ok.jsonl'), 0, NOW);
    expect(reply.text).toContain('<observation');
    expect(reply.usage).toEqual({ inputTokens: 1234, outputTokens: 56 });
    expect(reply.costUsd).toBeGreaterThan(0);
    expect(reply.model).toMatch(/haiku/);
  });

  it.each([
    ['claude-401.jsonl', 'auth', null],
    ['claude-429.jsonl', 'rate_limit', null],
    ['claude-usage-limit.jsonl', 'quota', 'usage_limit'],
    ['claude-logged-out.jsonl', 'auth', 'logged_out'],
  ] as const)('types %s from its structured fields as %s', (file, kind, detail) => {
    const error = failure(() => readClaudeCodeOutput(fixture(file), 1, NOW));
    expect(error.kind).toBe(kind);
    expect(error.detail).toBe(detail);
  });

  it('waits for a usage limit until the reset time Claude Code reported', () => {
    const text = fixture('claude-usage-limit.jsonl');
    const resetsAt = (
      text
        .split('\n')
        .map((l) => (l.startsWith('{') ? JSON.parse(l) : null))
        .find((l) => l?.type === 'rate_limit_event') as any
    ).rate_limit_info.resetsAt;
    const error = failure(() => readClaudeCodeOutput(text, 1, NOW));
    expect(error.retryAfterMs).toBe(Math.max(0, resetsAt * 1000 - NOW));
  });

  it('never reads a failure out of the reply text: an answer that talks about limits is an answer', () => {
    const ok = fixture('claude-ok.jsonl')
      .split('\n')
      .map((line) =>
        line.includes('"type":"result"') ? JSON.stringify({ ...JSON.parse(line), result: "You've hit your usage limit. Not logged in. API Error: 401" }) : line,
      )
      .join('\n');
    expect(readClaudeCodeOutput(ok, 0, NOW).text).toContain('usage limit');
  });

  it('calls a run that printed no result a CLI failure (transport, retried with backoff)', () => {
    const error = failure(() => readClaudeCodeOutput('warning: something\n', 1, NOW));
    expect(error).toMatchObject({ kind: 'transport', detail: 'cli_failed' });
  });
});

describe('Gemini CLI json', () => {
  it('reads the reply and sums the token counts per model', () => {
    const reply = readGeminiOutput(fixture('gemini-ok.stdout'), fixture('gemini-ok.stderr'), 0, NOW);
    expect(reply.text).toBe('ok');
    expect(reply.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
    expect(reply.model).toBe('gemini-2.5-flash-lite');
  });

  it.each([
    ['gemini-401', 145, 'auth', null],
    ['gemini-429', 173, 'rate_limit', null],
    ['gemini-500', 244, 'overloaded', null],
    ['gemini-no-login', 41, 'auth', 'logged_out'],
  ] as const)('types %s from the error object on stderr and the exit code', (name, exit, kind, detail) => {
    const error = failure(() => readGeminiOutput(fixture(`${name}.stdout`), fixture(`${name}.stderr`), exit, NOW));
    expect(error.kind).toBe(kind);
    expect(error.detail).toBe(detail);
  });
});

describe('Codex exec --json', () => {
  it('reads the last agent message and the turn usage', () => {
    const reply = readCodexOutput(fixture('codex-ok.jsonl'), 0, NOW);
    expect(reply.text).toContain('<observation');
    expect(reply.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
  });

  it.each([
    ['codex-401.jsonl', 'auth', null],
    ['codex-usage-limit.jsonl', 'quota', 'usage_limit'],
    ['codex-no-key.jsonl', 'auth', 'logged_out'],
  ] as const)('types %s from turn.failed', (file, kind, detail) => {
    const error = failure(() => readCodexOutput(fixture(file), 1, NOW));
    expect(error.kind).toBe(kind);
    expect(error.detail).toBe(detail);
  });

  it('reads failures only from Codex’s own turn.failed, never from the model’s message', () => {
    const ok = fixture('codex-ok.jsonl').replace('<observation', 'unexpected status 401 — you hit your usage limit <observation');
    expect(readCodexOutput(ok, 0, NOW).text).toContain('usage limit');
  });
});

describe('Copilot CLI --output-format json', () => {
  it('reads the last assistant message, and the tokens from its usage file', () => {
    const reply = readCopilotOutput(fixture('copilot-ok.jsonl'), '', 0, NOW);
    expect(JSON.parse(reply.text)).toEqual({ observations: [{ type: 'change', title: 'out.txt edited' }] });
    expect(readCopilotUsage(fixture('copilot-ok-usage.json'))).toEqual({ usage: { inputTokens: 100, outputTokens: 10 }, model: 'fake-model' });
    // Absent is not zero.
    expect(readCopilotUsage(null)).toEqual({ usage: null, model: null });
    expect(readCopilotUsage('{"modelMetrics":{"m":{"usage":{"inputTokens":1}}}}').usage).toBeNull();
  });

  it.each([
    ['copilot-401.jsonl', 'auth', 401],
    ['copilot-429.jsonl', 'rate_limit', 429],
  ] as const)('types %s from its session.error status as %s', (file, kind, status) => {
    const error = failure(() => readCopilotOutput(fixture(file), '', 1, NOW));
    expect(error).toMatchObject({ kind, status });
  });

  it('types a run with no login as auth (logged_out), and anything else it prints as transport', () => {
    expect(failure(() => readCopilotOutput('', fixture('copilot-no-login.stderr.txt'), 1, NOW))).toMatchObject({ kind: 'auth', detail: 'logged_out' });
    expect(failure(() => readCopilotOutput(fixture('copilot-unreachable.jsonl'), '', 1, NOW))).toMatchObject({ kind: 'transport' });
    expect(failure(() => readCopilotOutput('{"type":"assistant.message","data":{"content":"auth failed, rate limit"}}\n', 'boom', 1, NOW))).toMatchObject({
      kind: 'transport',
      detail: 'cli_failed',
    });
  });
});

describe('codex mcp list', () => {
  it('names the servers to turn off from the table, whose environment values Codex masks', () => {
    const table = [
      'Name     Command     Args                                         Env                 Cwd  Status   Auth       ',
      'marker   sh          -c touch /tmp/mk; sleep 30                   -                   -    enabled  Unsupported',
      'withenv  true        -                                            SECRET_TOKEN=*****  -    enabled  Unsupported',
      '',
    ].join('\n');
    expect(mcpServerNames(table)).toEqual(['marker', 'withenv']);
    expect(mcpServerNames('No MCP servers configured yet.\n')).toEqual([]);
  });
});

describe('OpenCode run --format json', () => {
  it('reads the reply and the tokens of every step; a cost of 0 (no price known) is unknown', () => {
    const reply = readOpenCodeOutput(fixture('opencode-ok.jsonl'), 0, NOW);
    expect(reply.text).toBe('{"observations":[{"type":"change","title":"out.txt edited"}]}');
    expect(reply.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
    expect(reply.costUsd).toBeNull();
  });

  it.each([
    ['opencode-401.jsonl', 'auth', 401, null],
    ['opencode-429.jsonl', 'rate_limit', 429, 7_000],
  ] as const)('types %s from the APIError’s status, body and Retry-After', (file, kind, status, retryAfterMs) => {
    const error = failure(() => readOpenCodeOutput(fixture(file), 1, NOW));
    expect(error).toMatchObject({ kind, status, retryAfterMs });
  });

  it('never reads a failure out of the reply text, and a run with no result is a transport failure', () => {
    const said = fixture('opencode-ok.jsonl').replace('out.txt edited', 'APIError statusCode 401 not logged in');
    expect(readOpenCodeOutput(said, 0, NOW).text).toContain('APIError statusCode 401');
    expect(failure(() => readOpenCodeOutput('', 1, NOW))).toMatchObject({ kind: 'transport', detail: 'cli_failed' });
    expect(failure(() => readOpenCodeOutput('{"type":"error","error":{"name":"ProviderAuthError","data":{}}}', 1, NOW))).toMatchObject({
      kind: 'auth',
      detail: 'logged_out',
    });
  });

  it('finds the MCP servers to turn off in `opencode debug config`', () => {
    expect(openCodeMcpNames(JSON.stringify({ model: 'x', mcp: { memtrace: {}, 'my docs': { type: 'remote' } } }))).toEqual(['memtrace', 'my docs']);
    expect(openCodeMcpNames('not json')).toEqual([]);
  });
});

describe('pi --mode json', () => {
  it('reads the last assistant message, its usage and model; a cost of 0 is unknown', () => {
    const reply = readPiOutput(fixture('pi-ok.jsonl'), 0, NOW);
    expect(reply).toEqual({
      text: '{"observations":[{"type":"change","title":"out.txt edited"}]}',
      usage: { inputTokens: 100, outputTokens: 10 },
      costUsd: null,
      model: 'fake-model',
    });
  });

  it.each([
    ['pi-401.jsonl', 'auth', 401],
    ['pi-429.jsonl', 'rate_limit', 429],
  ] as const)('types %s (pi exits 0) from the status its provider client wrote first', (file, kind, status) => {
    expect(failure(() => readPiOutput(fixture(file), 0, NOW))).toMatchObject({ kind, status });
  });

  it('never reads a failure out of the reply text', () => {
    const said = fixture('pi-ok.jsonl').replaceAll('out.txt edited', '401 Unauthorized');
    expect(readPiOutput(said, 0, NOW).text).toContain('401 Unauthorized');
    expect(failure(() => readPiOutput('{"type":"session"}', 0, NOW))).toMatchObject({ kind: 'transport', detail: 'cli_failed' });
  });
});
