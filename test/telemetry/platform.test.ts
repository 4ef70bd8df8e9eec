/**
 * Every session records its agent host, and the rollups carry it as a closed enum: a Codex
 * session's observer turns and hook calls reach PostHog as `platform: codex`; an unknown host is
 * `other`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runHook } from '../../src/hook/hook-entry.js';
import { MEMTRACE_BIN } from '../../src/cli/memtrace-bin.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { scrubProperties } from '../../src/telemetry/index.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { captureIO } from '../support/cli-io.js';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('the platform in telemetry', () => {
  let capture: CaptureServer;
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await capture?.close();
    temp?.cleanup();
  });

  it('sends a Codex session’s observer_turn_rollup and hook_rollup windows with platform codex', async () => {
    capture = await startCaptureServer();
    temp = makeTempDir();
    const reply = JSON.stringify({ text: observationXml({ type: 'discovery', title: 'x' }), model: 'claude-haiku-4-5' });
    h = await startHarness(createReplayProvider({ lines: Array.from({ length: 10 }, () => reply) }), {
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url },
    });
    const env = { MEMTRACE_PORT: String(h.worker.port), MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir };
    const payloads = hostPayloads('codex', 'session');
    for (const { event, payload } of payloads.slice(0, -1)) {
      const c = captureIO({ stdin: JSON.stringify({ ...payload, transcript_path: hostTranscript('codex', 'rollout.jsonl') }), env });
      expect(await runHook(['--host', 'codex', event, '--via', 'settings'], { ...c.io, memtraceBin: MEMTRACE_BIN })).toBe(0);
    }
    await h.drained();
    const end = captureIO({ stdin: JSON.stringify(payloads.at(-1)!.payload), env });
    await runHook(['--host', 'codex', 'SessionEnd'], { ...end.io, memtraceBin: MEMTRACE_BIN });
    expect(h.worker.store.sessions.get(payloads[0]!.payload.session_id as string)?.platform).toBe('codex');
    await waitFor(() => capture.events.some((e) => e.event === 'observer_turn_rollup'));
    expect(capture.events.find((e) => e.event === 'observer_turn_rollup')!.properties).toMatchObject({ platform: 'codex', count: 5 });
    // Hook windows close at shutdown (or when their 5 minutes pass).
    await h.stop();
    h = undefined;
    const windows = capture.events.filter((e) => e.event === 'hook_rollup');
    expect(windows.length).toBeGreaterThan(0);
    expect(new Set(windows.map((e) => e.properties.platform))).toEqual(new Set(['codex']));
    expect(windows.find((e) => e.properties.hook_event === 'post_tool_use')!.properties).toMatchObject({ count: 4, install_mode: 'settings' });
  });

  it('lets only the closed enum through the scrubber', () => {
    expect(scrubProperties('hook_rollup', { platform: 'cursor', hook_event: 'stop' })).toEqual({ properties: { hook_event: 'stop' }, dropped: ['platform'] });
    expect(scrubProperties('observer_turn_rollup', { platform: 'gemini-cli' })!.properties).toEqual({ platform: 'gemini-cli' });
  });
});
