import { secretSamples, seeded } from './secret-samples.js';

/**
 * Hook tool events shaped like a coding session's: files read (code), commands run (build and
 * test logs), edits, searches; 1–8 kB each, and one in `secretEvery` holding a secret. Seeded:
 * the same seed gives the same events.
 */
const WORDS = [
  'const',
  'return',
  'function',
  'import',
  'export',
  'await',
  'async',
  'interface',
  'string',
  'number',
  'value',
  'result',
  'error',
  'config',
  'session',
  'store',
  'queue',
  'observer',
  'payload',
  'response',
];
const IDENTS = [
  'createStore',
  'parseConfig',
  'handleRequest',
  'observerLoop',
  'retentionPass',
  'toolEvents',
  'sessionPrompts',
  'buildContext',
  'redactValue',
  'hookTransport',
];

export function realisticEvents(count: number, options: { seed?: number; secretEvery?: number } = {}) {
  const random = seeded(options.seed ?? 7);
  const secrets = secretSamples(options.seed ?? 7);
  const secretEvery = options.secretEvery ?? 50;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const codeLine = () => `  ${pick(WORDS)} ${pick(IDENTS)}(${pick(WORDS)}, ${Math.floor(random() * 1000)}); // ${pick(WORDS)} ${pick(WORDS)}`;
  const logLine = () =>
    `${new Date(1_767_225_600_000 + Math.floor(random() * 1e9)).toISOString()} ${pick(['INFO', 'WARN', 'DEBUG'])} ${pick(IDENTS)}: ${pick(WORDS)} ${pick(WORDS)} in ${Math.floor(random() * 900)} ms`;
  const lines = (make: () => string, n: number) => Array.from({ length: n }, make).join('\n');
  return Array.from({ length: count }, (_, i) => {
    const size = 1_000 + Math.floor(random() * 7_000);
    const n = Math.max(4, Math.floor(size / 60));
    const secret = i % secretEvery === secretEvery - 1 ? `\n${pick(secrets).text}\n` : '';
    const kind = i % 4;
    const body =
      kind === 0
        ? {
            tool_name: 'Read',
            tool_input: { file_path: `/work/app/src/${pick(IDENTS)}.ts` },
            tool_response: { type: 'text', file: { filePath: `/work/app/src/${pick(IDENTS)}.ts`, content: lines(codeLine, n) + secret } },
          }
        : kind === 1
          ? {
              tool_name: 'Bash',
              tool_input: { command: 'npm test 2>&1 | tail -80', description: 'Run the tests' },
              tool_response: { stdout: lines(logLine, n) + secret, stderr: '', interrupted: false },
            }
          : kind === 2
            ? {
                tool_name: 'Edit',
                tool_input: {
                  file_path: `/work/app/src/${pick(IDENTS)}.ts`,
                  old_string: lines(codeLine, Math.floor(n / 2)),
                  new_string: lines(codeLine, Math.floor(n / 2)) + secret,
                },
                tool_response: { success: true },
              }
            : {
                tool_name: 'Grep',
                tool_input: { pattern: pick(IDENTS), path: '/work/app' },
                tool_response: { content: lines(() => `src/${pick(IDENTS)}.ts:${Math.floor(random() * 400)}:${codeLine()}`, n) + secret },
              };
    return { session_id: `s${Math.floor(i / 100)}`, tool_use_id: `toolu_${options.seed ?? 7}_${i}`, cwd: '/work/app', ...body };
  });
}
