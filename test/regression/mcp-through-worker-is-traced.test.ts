import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { bridgePathEnv, FORWARDER } from '../support/mcp-bridge.js';
import { seedShop } from '../support/memory-fixtures.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { decodeTraces } from '../support/otlp-decode.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { startHarness } from '../support/worker-harness.js';

/**
 * The bug: a search the worker served through the bridge was counted but exported no GenAI
 * memory span — only the Node stdio server's store was wrapped with them — so with a worker
 * running (the usual case) OpenTelemetry saw no MCP memory operation at all.
 */
describe('an MCP search served by the worker', () => {
  it('is a search_memory span with via mcp, as when the Node server serves it', async () => {
    const receiver = await startOtlpReceiver();
    const h = await startHarness(noProvider(), { env: { MEMTRACE_TELEMETRY: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
    try {
      seedShop(h.worker.store);
      buildNativeForwarderInto(h.dataDir);
      const client = new Client({ name: 'test-host', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: 'sh',
          args: [FORWARDER, 'mcp', process.execPath],
          env: { PATH: bridgePathEnv('native'), HOME: h.dataDir, MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_TELEMETRY: '0' },
          stderr: 'pipe',
        }),
      );
      await client.callTool({ name: 'search', arguments: { query: 'discount before tax' } });
      await client.close();
      // What is pending is exported when the worker stops.
      await h.stop();
      const spans = receiver.received.filter((x) => x.path === '/v1/traces').flatMap((x) => decodeTraces(x.body));
      expect(spans.map((s) => [s.name, s.attributes['memtrace.memory.via']])).toContainEqual(['search_memory memtrace', 'mcp']);
    } finally {
      await h.stop();
      await receiver.close();
    }
  });
});
