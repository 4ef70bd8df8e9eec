import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTraces } from '../support/otlp-decode.js';
import { useMemoryCliWithReceiver } from '../support/memory-cli.js';

/** The memory surface's commands, run as a user runs them (the built CLI, a child process), with an OTLP receiver configured. */
describe('memory operations as GenAI memory spans', () => {
  const cli = useMemoryCliWithReceiver('memtrace-memory-spans-');
  const run = (args: string[], env: Record<string, string> = {}) => cli.run(args, { MEMTRACE_TELEMETRY: '0', ...env });

  it('exports a search_memory span with the result count and not the query, before the command exits', async () => {
    const before = cli.receiver().received.length;
    const r = await run(['search', 'coupon', 'applied', 'after', 'VAT', '--json'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: cli.receiver().url,
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(r.status, r.stderr).toBe(0);
    const results = (JSON.parse(r.stdout) as { results: unknown[] }).results.length;
    const sent = cli.receiver().received.slice(before);
    const spans = sent.filter((x) => x.path === '/v1/traces').flatMap((x) => decodeTraces(x.body));
    expect(spans.map((s) => [s.name, s.attributes['gen_ai.memory.record.count'], s.attributes['memtrace.memory.via']])).toEqual([
      ['search_memory memtrace', results, 'cli'],
    ]);
    const bytes = Buffer.concat(sent.map((x) => x.body)).toString('latin1');
    for (const word of ['coupon', 'VAT', '/work/shop']) expect(bytes).not.toContain(word);
  });

  it('prints the span on stdout with OTEL_TRACES_EXPORTER=console, and sends nothing without OTel variables', async () => {
    const before = cli.receiver().received.length;
    const consoleRun = await run(['export', '--format', 'jsonl', '--out', path.join(cli.tempDir, 'out.jsonl')], {
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(consoleRun.status, consoleRun.stderr).toBe(0);
    expect(consoleRun.stdout).toMatch(/search_memory memtrace[\s\S]*'memtrace.memory.operation': 'export'/);
    const quiet = await run(['search', 'coupon', '--json']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain('search_memory');
    expect(cli.receiver().received.length).toBe(before);
  });
});
