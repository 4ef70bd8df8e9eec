/**
 * SLOW (~5 s): the real Claude Code CLI (pinned devDependency), offline against the fake Anthropic
 * API, with memtrace registered by `memtrace install` (user scope: hooks in settings.json, the MCP
 * server in ~/.claude.json) beside a real worker. The scripted assistant calls
 * `mcp__memtrace__search`, then `mcp__memtrace__get_observations` on the id the search named;
 * Claude Code starts the installed bridge (`sh bin/memtrace-hook mcp <node>`), which carries the
 * calls to the worker's MCP server, and the right observation comes back in its tool results.
 * Then a cold session: no worker at all, and the tools still answer in the first turn (the bridge
 * hands over to the Node stdio server).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { claudeUnavailableReason, runClaudeCode, type ClaudeRunResult } from '../support/claude-code.js';
import { captureIO } from '../support/cli-io.js';
import { lastToolResults, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { offersMemtraceTools } from '../support/mcp-tools.js';
import { addObservation } from '../support/memory-fixtures.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { openStore } from '../../src/store/index.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping the Claude Code MCP e2e test: ${unavailable}`);

const NARRATIVE_MARKER = 'computeTotal applied the coupon after VAT; the fix moved applyDiscount before tax (marker 7f3a)';
const resultText = (r: { content: unknown }) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content));

describe.skipIf(unavailable !== null)('the memtrace MCP server in the real Claude Code', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let observer: FakeLlm;
  let h: Harness;
  let api: FakeAnthropic;
  let run: ClaudeRunResult;
  let targetId: number;
  let installOut: string;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-cc-mcp-');
    const project = path.join(temp.dir, 'shop');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    observer = await startFakeLlm('anthropic', { kind: 'text', text: '<skip_summary reason="test"/>' });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: observer.url }), {
      dataDir: path.join(temp.dir, 'memtrace-data'),
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 3_600_000 },
    });
    const store = h.worker.store;
    const provenance = (at: number) => ({
      sessionId: 'earlier-session',
      project: fs.realpathSync(project),
      sourceMessageIds: [],
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      promptVersion: 'v1',
      discoveryTokens: null,
      createdAt: at,
    });
    store.db.transaction(() => {
      store.observations.insert(
        {
          type: 'discovery',
          title: 'Payments are confirmed by the Stripe webhook',
          subtitle: '',
          narrative: 'Refunds and captures arrive at webhooks/stripe.ts.',
          facts: [],
          concepts: ['payments'],
          files_read: ['src/webhooks/stripe.ts'],
          files_modified: [],
        },
        provenance(1_760_000_000_000),
      );
      targetId = store.observations.insert(
        {
          type: 'bugfix',
          title: 'Checkout total ignored the discount code',
          subtitle: 'order of operations in computeTotal',
          narrative: NARRATIVE_MARKER,
          facts: ['applyDiscount now runs before tax'],
          concepts: ['checkout', 'pricing'],
          files_read: [],
          files_modified: ['src/cart/compute-total.ts'],
        },
        provenance(1_760_000_100_000),
      );
      store.observations.insert(
        {
          type: 'change',
          title: 'Renamed the cart module',
          subtitle: '',
          narrative: 'cart.js became cart/index.ts.',
          facts: [],
          concepts: [],
          files_read: [],
          files_modified: ['src/cart/index.ts'],
        },
        provenance(1_760_000_200_000),
      );
    })();

    const home = path.join(temp.dir, 'home');
    fs.mkdirSync(home);
    const env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0' };
    const c = captureIO({ env: { ...env, HOME: home } });
    expect(await main(['install'], c.io), c.stderr()).toBe(0);
    installOut = c.stdout();

    api = await startFakeAnthropic({
      script: [
        { toolCalls: [{ id: 'toolu_mcp_search', name: 'mcp__memtrace__search', input: { query: 'why did the checkout total not take the coupon off?' } }] },
        { toolCalls: [{ id: 'toolu_mcp_get', name: 'mcp__memtrace__get_observations', input: { ids: [targetId] } }] },
        { text: 'The discount was applied after tax; memtrace remembered the fix.' },
      ],
    });
    run = await runClaudeCode({
      projectDir: project,
      prompt: 'What did we learn last time about the checkout discount?',
      apiUrl: api.url,
      home,
      env,
      allowedTools: ['mcp__memtrace__search', 'mcp__memtrace__get_observations'],
      forwardPorts: [h.worker.port],
      timeoutMs: 90_000,
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await h?.stop();
    await observer?.close();
    temp?.cleanup();
  });

  it('install registered the server in ~/.claude.json', () => {
    expect(installOut).toContain(`installed memtrace's MCP server in ${path.join(temp.dir, 'home', '.claude.json')} (added "memtrace").`);
  });

  it('offers the three memtrace tools in the first model request, through the installed bridge to the worker', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(offersMemtraceTools('claude-code', api.mainBodies()[0])).toBe(true);
    // Claude Code started the bridge, which reached this worker's MCP server (not the Node fallback).
    expect(h.log.records.some((r) => r.message === 'an MCP session opened')).toBe(true);
  });

  it('answers search with the id and title, then get_observations with the full observation', () => {
    expect(api.remainingTurns()).toBe(0);
    const bodies = api.mainBodies();
    const search = lastToolResults(bodies[1]).find((r) => r.tool_use_id === 'toolu_mcp_search')!;
    expect(search.is_error ?? false).toBe(false);
    expect(resultText(search)).toContain(`#${targetId} [bugfix]`);
    expect(resultText(search)).toContain('Checkout total ignored the discount code');
    const opened = lastToolResults(bodies[2]).find((r) => r.tool_use_id === 'toolu_mcp_get')!;
    expect(opened.is_error ?? false).toBe(false);
    expect(resultText(opened)).toContain(NARRATIVE_MARKER);
    expect(resultText(opened)).toContain('applyDiscount now runs before tax');
    expect(run.json?.result).toContain('memtrace remembered the fix');
  });
});

describe.skipIf(unavailable !== null)('the memtrace MCP server in a cold Claude Code session (no worker running)', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let api: FakeAnthropic;
  let run: ClaudeRunResult;
  let dataDir: string;
  let seededId: number;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-cc-mcp-cold-');
    const project = path.join(temp.dir, 'shop');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    dataDir = path.join(temp.dir, 'memtrace-data');
    const home = path.join(temp.dir, 'home');
    fs.mkdirSync(home);
    const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', MEMTRACE_PROVIDER: 'none' };
    const c = captureIO({ env: { ...env, HOME: home } });
    expect(await main(['install'], c.io), c.stderr()).toBe(0);
    // Memory from an earlier session, and no worker: the data dir as a machine has it after a reboot.
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    try {
      seededId = addObservation(store, {
        type: 'bugfix',
        title: 'Checkout total ignored the discount code',
        narrative: NARRATIVE_MARKER,
        project: fs.realpathSync(project),
      });
    } finally {
      store.close();
    }
    expect(fs.existsSync(path.join(dataDir, 'worker.sock'))).toBe(false);
    api = await startFakeAnthropic({
      script: [{ toolCalls: [{ id: 'toolu_cold_search', name: 'mcp__memtrace__search', input: { query: 'checkout discount code' } }] }, { text: 'Found it.' }],
    });
    run = await runClaudeCode({
      projectDir: project,
      prompt: 'What do we know about the checkout discount?',
      apiUrl: api.url,
      home,
      env,
      allowedTools: ['mcp__memtrace__search'],
      timeoutMs: 90_000,
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    // The cold SessionStart started a worker in the background.
    await stopStartedWorker(dataDir);
    temp?.cleanup();
  });

  it('offers the tools in the first model request and answers the first call from the stored memory', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const bodies = api.mainBodies();
    expect(offersMemtraceTools('claude-code', bodies[0])).toBe(true);
    const search = lastToolResults(bodies[1]).find((r) => r.tool_use_id === 'toolu_cold_search')!;
    expect(search.is_error ?? false).toBe(false);
    expect(resultText(search)).toContain(`#${seededId} [bugfix]`);
  });
});
