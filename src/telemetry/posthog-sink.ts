import { PostHog } from 'posthog-node';
import type { OutboxEvent } from './telemetry-store.js';

export interface EventSink {
  readonly host: string;
  send(installId: string, events: OutboxEvent[]): Promise<{ ok: true } | { ok: false; error: string }>;
}

/**
 * posthog-node delivery where SQLite stays the source of truth: a fresh client per batch with
 * its own retries off (its memory queue would re-send on the next batch), capture each event
 * with its uuid and timestamp, and count it sent only if flush() resolved.
 */
export function createPostHogSink(config: { apiKey: string; host: string; requestTimeoutMs?: number }): EventSink {
  return {
    host: config.host,
    async send(installId, events) {
      const client = new PostHog(config.apiKey, {
        host: config.host,
        flushAt: Math.max(1, events.length + 1),
        flushInterval: 0,
        fetchRetryCount: 0,
        requestTimeout: config.requestTimeoutMs ?? 10_000,
        disableGeoip: true,
        maxBatchSize: 100,
      });
      let failure: unknown = null;
      client.on('error', (error: unknown) => {
        failure ??= error;
      });
      try {
        for (const event of events) {
          client.capture({ distinctId: installId, event: event.event, properties: event.properties, uuid: event.uuid, timestamp: new Date(event.timestamp) });
        }
        await client.flush();
        return failure === null ? { ok: true } : { ok: false, error: describe(failure) };
      } catch (error) {
        return { ok: false, error: describe(error) };
      }
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { response?: { status?: number } }).response?.status;
    return status ? `HTTP ${status}` : error.message.slice(0, 200);
  }
  return String(error).slice(0, 200);
}
