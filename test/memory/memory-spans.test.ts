import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { seedShop } from '../support/memory-fixtures.js';
import { decodeTraces } from '../support/otlp-decode.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.resolve('bin/memtrace.cjs');

/** The memory surface's commands, run as a user runs them (the built CLI, a child process), with an OTLP receiver configured. */
describe('memory operations as GenAI memory spans', () => {
  const temp = makeTempDir('memtrace-memory-spans-');
  const dataDir = path.join(temp.dir, 'data');
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    seedShop(store);
    store.close();
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    temp.cleanup();
  });

  // Asynchronous: the receiver lives in this process and must answer while the command runs.
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        {
          encoding: 'utf8',
          timeout: 120_000,
          env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', ...env },
        },
        (error, stdout, stderr) => resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('exports a search_memory span with the result count and not the query, before the command exits', async () => {
    const before = receiver.received.length;
    const r = await run(['search', 'coupon', 'applied', 'after', 'VAT', '--json'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(r.status, r.stderr).toBe(0);
    const results = (JSON.parse(r.stdout) as { results: unknown[] }).results.length;
    const sent = receiver.received.slice(before);
    const spans = sent.filter((x) => x.path === '/v1/traces').flatMap((x) => decodeTraces(x.body));
    expect(spans.map((s) => [s.name, s.attributes['gen_ai.memory.record.count'], s.attributes['memtrace.memory.via']])).toEqual([
      ['search_memory memtrace', results, 'cli'],
    ]);
    const bytes = Buffer.concat(sent.map((x) => x.body)).toString('latin1');
    for (const word of ['coupon', 'VAT', '/work/shop']) expect(bytes).not.toContain(word);
  });

  it('prints the span on stdout with OTEL_TRACES_EXPORTER=console, and sends nothing without OTel variables', async () => {
    const before = receiver.received.length;
    const consoleRun = await run(['export', '--format', 'jsonl', '--out', path.join(temp.dir, 'out.jsonl')], {
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(consoleRun.status, consoleRun.stderr).toBe(0);
    expect(consoleRun.stdout).toMatch(/search_memory memtrace[\s\S]*'memtrace.memory.operation': 'export'/);
    const quiet = await run(['search', 'coupon', '--json']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain('search_memory');
    expect(receiver.received.length).toBe(before);
  });
});
