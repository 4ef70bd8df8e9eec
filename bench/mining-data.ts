/**
 * Synthetic Claude Code transcripts for bench/mining.bench.ts, written by a child process so
 * the benchmark's memory figures do not carry the generator's garbage. Run:
 * node --import tsx bench/mining-data.ts <dir> <files> <bytes>
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TranscriptBuilder } from '../test/support/transcripts.js';

/** Deterministic pseudo-random numbers, so every run mines the same bytes. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * One synthetic session in the real shapes: prompts, split assistant responses, tool calls
 * with structured results of typical sizes (Read 2–60 KB, Bash, Edit with originalFile), the
 * odd multi-MB line (an image or a huge read), compactions, metadata lines.
 */
function session(bytes: number, rand: () => number, big: boolean): TranscriptBuilder {
  const t = new TranscriptBuilder(crypto.randomUUID(), `/work/project-${Math.floor(rand() * 20)}`);
  const code = (n: number) => 'const value = compute(input); // é ✓\n'.repeat(Math.max(1, Math.floor(n / 38)));
  t.snapshot();
  t.prompt('make the failing test pass and explain why it failed');
  let size = 0;
  let calls = 0;
  if (big) {
    t.call(
      'Read',
      { file_path: 'screenshot.png' },
      { type: 'image', file: { base64: 'iVBORw0KGgo'.repeat(Math.floor((8 * 1024 * 1024) / 11)), type: 'image/png' } },
    );
  }
  while (size < bytes) {
    const msg = t.newMessageId();
    t.thinking('Looking at the next file to understand the failure.', msg);
    t.text('Let me read the module and run the tests.', msg);
    const r = rand();
    if (r < 0.5) {
      const content = code(2_000 + rand() * 58_000);
      const id = t.toolUse('Read', { file_path: `/work/src/m${calls}.ts` }, msg);
      t.toolResult(id, {
        content: content.slice(0, 2_000),
        toolUseResult: { type: 'text', file: { filePath: `/work/src/m${calls}.ts`, content, numLines: 100, startLine: 1, totalLines: 100 } },
      });
    } else if (r < 0.8) {
      const id = t.toolUse('Bash', { command: 'npm test -- --run', description: 'Run the tests' }, msg);
      const out = 'PASS test/a.test.ts\n'.repeat(Math.floor(50 + rand() * 400));
      t.toolResult(id, { content: out, toolUseResult: { stdout: out, stderr: '', interrupted: false, isImage: false } });
    } else {
      const original = code(5_000 + rand() * 30_000);
      const id = t.toolUse('Edit', { file_path: `/work/src/m${calls}.ts`, old_string: 'compute(input)', new_string: 'compute(input, options)' }, msg);
      t.toolResult(id, {
        content: 'The file has been updated.',
        toolUseResult: {
          filePath: `/work/src/m${calls}.ts`,
          oldString: 'compute(input)',
          newString: 'compute(input, options)',
          originalFile: original,
          structuredPatch: [],
        },
      });
    }
    calls += 1;
    if (calls % 40 === 0) t.compact();
    if (calls % 7 === 0) t.turnDuration();
    size = t.lines.reduce((sum, l) => sum + l.length + 1, 0);
  }
  t.text('The test passes now: the options were not forwarded.');
  return t;
}

export function generate(dir: string, FILES: number, TARGET_BYTES: number): { files: string[]; bytes: number } {
  const rand = prng(12);
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i += 1) {
    const project = path.join(dir, `-work-project-${i % 25}`);
    fs.mkdirSync(project, { recursive: true });
    // Sizes vary as real sessions do: most small, some several MB, a few with an 8 MB line.
    const share = (TARGET_BYTES - bytes) / (FILES - i);
    const want = i % 100 === 7 ? Math.max(share, 9 * 1024 * 1024) : Math.max(20_000, share * (0.2 + rand() * 1.6));
    const t = session(want, rand, i % 100 === 7);
    const file = path.join(project, `${t.sessionId}.jsonl`);
    t.writeTo(file);
    bytes += fs.statSync(file).size;
    files.push(file);
  }
  // Idle as far as the watcher is concerned.
  const old = new Date(Date.now() - 3_600_000);
  for (const f of files) fs.utimesSync(f, old, old);
  return { files, bytes };
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const [dir, files, bytes] = process.argv.slice(2);
  const result = generate(dir!, Number(files), Number(bytes));
  process.stdout.write(JSON.stringify({ files: result.files.length, bytes: result.bytes }));
}
