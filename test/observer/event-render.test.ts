import { describe, expect, it } from 'vitest';
import { EVENT_CUTS, headTail, renderEvent } from '../../src/observer/event-render.js';
import { observerBytes, utf8Length } from '../../src/observer/event-view.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);

describe('what one tool event contributes to the observer call', () => {
  it('names a file read by path and line range: the content is in the repository', () => {
    const block = renderEvent(
      {
        toolName: 'Read',
        toolInput: { file_path: '/repo/src/big.ts', offset: 40, limit: 20 },
        toolResponse: { type: 'text', file: { filePath: '/repo/src/big.ts', content: 'BODY '.repeat(10_000), numLines: 20, startLine: 40, totalLines: 900 } },
        atMs: AT,
      },
      'e3',
    );
    expect(block).toBe('<event id="e3" tool="Read" time="2026-01-02T03:04:05Z" result="ok">\nfile: /repo/src/big.ts\nlines: 40-59 of 900\n</event>');
  });

  it('shows an edit as its diff, never the whole file before it', () => {
    const block = renderEvent(
      {
        toolName: 'Edit',
        toolInput: { file_path: 'src/a.ts', old_string: 'const a = 1;\nconst b = 2;\nreturn a;', new_string: 'const a = 1;\nconst b = 3;\nreturn a;' },
        toolResponse: { originalFile: 'ORIGINAL '.repeat(5_000), structuredPatch: [] },
        atMs: AT,
      },
      'e1',
    );
    expect(block).toContain('diff:\n-const b = 2;\n+const b = 3;');
    expect(block).not.toContain('ORIGINAL');
  });

  it('keeps the head and the tail of a long command output, and says how much went', () => {
    const log = Array.from({ length: 5_000 }, (_, i) => `line ${i}`).join('\n');
    const block = renderEvent({ toolName: 'Bash', toolInput: { command: 'npm test' }, toolResponse: { stdout: log, stderr: '' }, atMs: AT }, 'e1');
    expect(block).toContain('output (5000 lines):\nline 0\n');
    expect(block).toContain('line 4999');
    expect(block).toMatch(/… \[\d+ lines, \d+ characters cut\] …/);
    expect(block.length).toBeLessThan(EVENT_CUTS.command + EVENT_CUTS.output + 200);
  });

  it('shows a failure as failed, with its exit code and the head and tail of its error', () => {
    const block = renderEvent(
      {
        toolName: 'Bash',
        toolInput: { command: 'make' },
        toolResponse: undefined,
        failure: { error: 'Exit code 2\nmake: *** [all] Error 2', exitCode: 2 },
        atMs: AT,
      },
      'e4',
    );
    expect(block).toContain('result="failed, exit 2"');
    expect(block).toContain('error:\nExit code 2\nmake: *** [all] Error 2');
  });

  it('reads the other hosts’ tools the same way (Gemini replace and read_file, Codex apply_patch)', () => {
    expect(renderEvent({ toolName: 'read_file', toolInput: { file_path: '/p/out.txt' }, toolResponse: { llmContent: 'hello' }, atMs: AT }, 'e1')).not.toContain(
      'hello',
    );
    expect(
      renderEvent(
        { toolName: 'replace', toolInput: { file_path: 'out.txt', old_string: 'hello', new_string: 'hello world' }, toolResponse: {}, atMs: AT },
        'e2',
      ),
    ).toContain('-hello\n+hello world');
    const patch = '*** Begin Patch\n*** Update File: out.txt\n@@\n-hello\n+hello world\n*** End Patch\n';
    expect(renderEvent({ toolName: 'apply_patch', toolInput: { command: patch }, toolResponse: 'Exit code: 0\nSuccess.', atMs: AT }, 'e3')).toContain(
      patch.trim(),
    );
  });

  it('has room for a subagent’s type on its own line', () => {
    expect(renderEvent({ toolName: 'Grep', toolInput: { pattern: 'x' }, toolResponse: 'a.ts:1:x', atMs: AT, subagentType: 'Explore' }, 'e1')).toContain(
      '\nsubagent: Explore\n',
    );
  });

  it('never splits a surrogate pair and counts UTF-8 bytes as an encoder does', () => {
    const cut = headTail('🙂'.repeat(20_000), 1_000);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    for (const text of ['plain', 'é ü', '日本語', '🙂 ok', cut]) expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('records a queued event’s size as the observer sees it, not as it was stored', () => {
    const event = {
      kind: 'post_tool_use' as const,
      session_id: 's',
      tool_name: 'Read',
      tool_input: { file_path: 'a.ts' },
      tool_response: 'x'.repeat(100_000),
      at: AT,
    };
    expect(observerBytes(event)).toBeLessThan(200);
  });
});
