/**
 * Subagents named (issue 29, item 3): a Claude Code tool event carrying `agent_id` and
 * `agent_type` is stored, observed and shown with the subagent named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/hosts/claude-code/adapter.js';
import { parseEvent } from '../../src/hosts/index.js';
import { observationView, renderObservation, toolEventView } from '../../src/memory/provenance-view.js';
import { buildBatchPrompt } from '../../src/observer/prompts.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('tool events of Claude Code subagents', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('keeps agent_id and agent_type from the hook payload through validation', () => {
    const adapted = claudeCodeAdapter.toEvent(
      'PostToolUse',
      {
        session_id: 's',
        cwd: '/work/app',
        hook_event_name: 'PostToolUse',
        tool_name: 'Grep',
        tool_input: { pattern: 'router.post' },
        tool_response: { numFiles: 3 },
        tool_use_id: 'toolu_1',
        agent_id: 'a7f3e9',
        agent_type: 'Explore',
      },
      {},
    );
    expect(adapted.ok && adapted.event).toMatchObject({ agent_id: 'a7f3e9', agent_type: 'Explore' });
    if (adapted.ok && adapted.event) expect(parseEvent('post_tool_use', adapted.event)).toMatchObject({ ok: true, event: { agent_type: 'Explore' } });
  });

  it("names the subagent in the observer's prompt, and says nothing of one for the main agent", () => {
    const event = { toolName: 'Grep', toolInput: {}, toolResponse: {}, atMs: 0 };
    const session = { project: '/work/app', userPrompt: null };
    const prompt = (e: typeof event & { subagentType?: string }) => buildBatchPrompt({ events: [e], turnEnd: null }, session).messages[0]!.content;
    expect(prompt({ ...event, subagentType: 'Explore' })).toContain('subagent: Explore');
    expect(prompt(event)).not.toContain('subagent');
  });

  it('stores the event and the observation made from it with the subagent, and show names it', async () => {
    const temp = makeTempDir('memtrace-subagent-events-');
    try {
      const reply = observationXml({ type: 'discovery', title: 'Three payment endpoints exist', narrative: 'router.post in pay.ts' });
      h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply }), JSON.stringify({ text: reply })] }), { dataDir: temp.dir });
      const post = (toolUseId: string, agent: Record<string, string>) =>
        h!.post('/api/sessions/observations', {
          session_id: 's',
          tool_use_id: toolUseId,
          tool_name: 'Grep',
          tool_input: { pattern: 'router.post' },
          tool_response: { numFiles: 3 },
          cwd: temp.dir,
          ...agent,
        });
      expect((await post('t-sub', { agent_id: 'a7f3e9', agent_type: 'Explore' })).status).toBe(202);
      expect((await post('t-main', {})).status).toBe(202);
      await h.drained();
      const store = h.worker.store;
      const events = store.toolEvents.forSession('s');
      expect(events.map((e) => [e.toolUseId, e.agentId, e.agentType])).toEqual([
        ['t-sub', 'a7f3e9', 'Explore'],
        ['t-main', null, null],
      ]);
      const observations = store.observations.forSession('s');
      expect(observations.map((o) => [o.agentId, o.agentType])).toEqual([
        ['a7f3e9', 'Explore'],
        [null, null],
      ]);
      const view = observationView(observations[0]!, store.toolEvents.byQueueIds(observations[0]!.sourceMessageIds));
      expect(view.provenance.subagent).toEqual({ id: 'a7f3e9', type: 'Explore' });
      expect(renderObservation(view)).toContain('subagent  Explore (a7f3e9)');
      expect(renderObservation(view)).toContain('Grep by subagent Explore (a7f3e9)');
      expect(toolEventView(events[1]!)).not.toHaveProperty('subagent');
    } finally {
      await h?.stop();
      h = undefined;
      temp.cleanup();
    }
  });
});
