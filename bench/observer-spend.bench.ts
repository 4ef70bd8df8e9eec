import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildContext, createContextQuery, estimateTokens } from '../src/context/index.js';
import { buildBatchPrompt } from '../src/observer/prompts.js';
import { createAnthropicProvider } from '../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS, type BatchLimits } from '../src/worker/batch-policy.js';
import { startFakeLlm, type FakeLlm } from '../test/support/fake-llm.js';
import { realisticEvents } from '../test/support/realistic-events.js';
import { observationXml, summaryXml } from '../test/support/replies.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { startHarness } from '../test/support/worker-harness.js';
import { measureCliCalls } from './observer-cli-calls.js';

export const name = 'observer-spend';

/**
 * What observing costs, per scripted session and provider, before and after one call per turn:
 * observer calls and input/output tokens per tool event, and for the next session the context's
 * `total_tokens_saved_vs_naive` against the tokens spent observing. Three ways to observe the
 * same events, through the real worker against a fake Anthropic API that counts tokens the way
 * memtrace estimates them (src/context/token-estimate.ts), for every mode alike:
 * - `before`: one call per event and one per turn end, the prompt of the observer this replaces
 *   (src/observer/prompts.ts at the commit before batching, read with git), computed, not run;
 * - `per_event`: one call per event, each event cut to what the observer needs;
 * - `per_turn`: what ships: one call per turn (its events, cut, and its end).
 * Output tokens come from scripted replies (one observation per three events, a summary per turn),
 * the same for every mode. Then wall and CPU per call through each real host CLI, against a
 * `node -e 0` baseline. BENCH_OBSERVER_CLI_CALLS sets the CLI calls per provider (default 2).
 */
interface Turn {
  events: Array<Record<string, unknown>>;
  last: string;
}
interface Session {
  name: string;
  id: string;
  cwd: string;
  prompt: string;
  turns: Turn[];
}

const BEFORE_COMMIT = 'c2c7132';

function sessions(): Session[] {
  const demo = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../demo/session.json'), 'utf8')) as {
    cwd: string;
    prompt: string;
    events: Array<Record<string, unknown>>;
    last_assistant_message: string;
  };
  const long = realisticEvents(36, { seed: 3, secretEvery: 1_000 });
  return [
    {
      name: 'demo (8 tool events, 1 turn)',
      id: 'demo',
      cwd: demo.cwd,
      prompt: demo.prompt,
      turns: [{ events: demo.events, last: demo.last_assistant_message }],
    },
    {
      name: 'realistic (36 tool events of 1-8 kB, 3 turns)',
      id: 'long',
      cwd: '/work/app',
      prompt: 'Make the tests pass',
      turns: [0, 1, 2].map((t) => ({ events: long.slice(t * 12, t * 12 + 12), last: `Turn ${t + 1} done: the failing tests pass.` })),
    },
  ];
}

/** A reply of the scripted observer: one observation per three events named, a summary at a turn end. */
function scriptedReply(content: string): string {
  const events = [...content.matchAll(/<event id="(e\d+)"/g)].map((m) => m[1]!);
  const perEvent = !content.includes('<event id=') && content.includes('<tool_call>');
  const count = perEvent ? 1 : Math.ceil(events.length / 3);
  const observations = Array.from({ length: count }, (_, i) =>
    observationXml({
      type: 'discovery',
      title: `Finding ${i + 1} of the turn`,
      narrative: 'What the agent found and why it matters for the next session on this project.',
      facts: ['a concrete fact worth keeping'],
      ...(perEvent ? {} : { sources: events.slice(i * 3, i * 3 + 3) }),
    }),
  ).join('\n');
  const summary =
    content.includes('<turn_end>') || content.includes("agent's last message")
      ? summaryXml({ request: 'the request', completed: 'what was done', learned: 'what was learned', next_steps: 'what remains' })
      : '';
  return perEvent && content.includes("agent's last message") ? summary : `${observations}${summary}`;
}

function fakeCountingTokens(): Promise<FakeLlm> {
  return startFakeLlm('anthropic', {
    kind: 'dynamic',
    respond: (body) => {
      const system = Array.isArray(body.system) ? body.system.map((b: { text: string }) => b.text).join('') : String(body.system);
      const content = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
      const text = scriptedReply(content);
      return { kind: 'text', text, usage: { input: estimateTokens(system) + estimateTokens(content), output: estimateTokens(text) } };
    },
  });
}

async function observeThroughWorker(session: Session, batch: BatchLimits) {
  const fake = await fakeCountingTokens();
  const h = await startHarness(createAnthropicProvider({ apiKey: 'bench', baseUrl: fake.url }), { batch });
  try {
    await h.post('/api/sessions/init', { session_id: session.id, project: session.cwd, prompt: session.prompt, cwd: session.cwd });
    for (const turn of session.turns) {
      for (const event of turn.events) await h.post('/api/sessions/observations', { ...event, session_id: session.id, cwd: session.cwd });
      await h.post('/api/sessions/summarize', { session_id: session.id, last_assistant_message: turn.last });
      await h.drained(60_000);
    }
    const spend = h.worker.store.observerCalls.ofSession(session.id);
    const next = buildContext(createContextQuery(h.worker.store.db), { project: session.cwd, label: 'bench', budgetTokens: 2_000, nowMs: Date.now() });
    return { calls: spend.calls, tokensIn: spend.tokensIn, tokensOut: spend.tokensOut, next };
  } finally {
    await h.stop();
    await fake.close();
  }
}

/** The observer this replaces, as it stood before batching: one call per event and per turn end. */
async function before(session: Session) {
  let source: string;
  try {
    source = execFileSync('git', ['show', `${BEFORE_COMMIT}:src/observer/prompts.ts`], { cwd: path.resolve(import.meta.dirname, '..'), encoding: 'utf8' });
  } catch {
    return null;
  }
  const temp = makeTempDir('memtrace-bench-before-');
  try {
    const file = path.join(temp.dir, 'prompts-before.ts');
    fs.writeFileSync(file, source);
    const old = (await import(pathToFileURL(file).href)) as {
      buildObservationPrompt(e: unknown, s: unknown): { system: string; messages: Array<{ content: string }> };
      buildSummaryPrompt(i: unknown, s: unknown): { system: string; messages: Array<{ content: string }> };
    };
    const info = { project: session.cwd, userPrompt: session.prompt };
    let calls = 0;
    let tokensIn = 0;
    let tokensOut = 0;
    const count = (prompt: { system: string; messages: Array<{ content: string }> }, content: string) => {
      calls += 1;
      tokensIn += estimateTokens(prompt.system) + estimateTokens(prompt.messages[0]!.content);
      tokensOut += estimateTokens(scriptedReply(content));
    };
    for (const turn of session.turns) {
      for (const e of turn.events) {
        const prompt = old.buildObservationPrompt(
          { toolName: e.tool_name, toolInput: e.tool_input, toolResponse: e.tool_response, cwd: session.cwd, atMs: Date.UTC(2026, 0, 1) },
          info,
        );
        count(prompt, prompt.messages[0]!.content);
      }
      const prompt = old.buildSummaryPrompt({ lastAssistantMessage: turn.last, recentObservations: [] }, info);
      count(prompt, prompt.messages[0]!.content);
    }
    return { calls, tokensIn, tokensOut };
  } finally {
    temp.cleanup();
  }
}

const per = (x: number, n: number) => Math.round((x / n) * 10) / 10;

export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const session of sessions()) {
    const events = session.turns.reduce((n, t) => n + t.events.length, 0);
    const figures = (r: { calls: number; tokensIn: number; tokensOut: number }) => ({
      calls: r.calls,
      calls_per_tool_event: per(r.calls, events),
      input_tokens_per_tool_event: per(r.tokensIn, events),
      output_tokens_per_tool_event: per(r.tokensOut, events),
      tokens_total: r.tokensIn + r.tokensOut,
    });
    const was = await before(session);
    const perEvent = await observeThroughWorker(session, { maxEvents: 1, maxTokens: DEFAULT_BATCH_LIMITS.maxTokens, maxWaitMs: 0 });
    const perTurn = await observeThroughWorker(session, DEFAULT_BATCH_LIMITS);
    const spent = perTurn.tokensIn + perTurn.tokensOut;
    out[session.name] = {
      tool_events: events,
      turns: session.turns.length,
      provider: 'anthropic (fake API counting estimated tokens)',
      before: was ? figures(was) : { skipped: `git show ${BEFORE_COMMIT} failed (not a git checkout)` },
      per_event: figures(perEvent),
      per_turn: figures(perTurn),
      input_tokens_per_turn_vs_before: was ? Math.round((perTurn.tokensIn / was.tokensIn) * 1000) / 1000 : null,
      calls_per_turn_vs_before: was ? Math.round((perTurn.calls / was.calls) * 1000) / 1000 : null,
      next_session: {
        tokens_spent_observing: spent,
        context_tokens_injected: perTurn.next.tokensInjected,
        total_tokens_saved_vs_naive: perTurn.next.tokensSavedVsNaive,
        net_tokens: perTurn.next.tokensSavedVsNaive === null ? null : perTurn.next.tokensSavedVsNaive - spent,
      },
    };
  }
  // One call through each real host CLI, with the demo turn's prompt.
  const demo = sessions()[0]!;
  const prompt = buildBatchPrompt(
    {
      events: demo.turns[0]!.events.map((e) => ({
        toolName: String(e.tool_name),
        toolInput: e.tool_input,
        toolResponse: e.tool_response,
        atMs: Date.UTC(2026, 0, 1),
      })),
      turnEnd: { lastAssistantMessage: demo.turns[0]!.last, recentObservations: [] },
    },
    { project: demo.cwd, userPrompt: demo.prompt },
  );
  const calls = Number(process.env.BENCH_OBSERVER_CLI_CALLS ?? 2);
  out.cli_call = await measureCliCalls({ ...prompt, maxOutputTokens: 4096 }, calls, scriptedReply(prompt.messages[0]!.content));
  return out;
}
