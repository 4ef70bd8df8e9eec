import type { HookEventKind } from '../hosts/index.js';
import { platformOf } from '../hosts/index.js';
import { agentShareBucket } from '../telemetry/index.js';

export interface AgentTimeSink {
  recordCounters(event: 'agent_time_rollup', dims: Record<string, string>, increments: Record<string, number>, nowMs: number): void;
}

interface SessionTime {
  host: string;
  startMs: number;
  lastMs: number;
  blockingMs: number;
  blockingCalls: number;
}

/** Sessions followed at once; past it the oldest is dropped (a worker restart drops them all). */
const MAX_SESSIONS = 10_000;

/**
 * memtrace's share of an agent's time, per session: the hook calls the agent waited for (the
 * host's blocking events, timed by the hooks themselves) over the session's wall time, from its
 * first hook's start to its last hook's reply. Folded into agent_time_rollup when the session
 * ends or goes quiet; nothing per session leaves the machine.
 */
export function createAgentTimeTracker(sink: AgentTimeSink, blocking: (host: string, kind: HookEventKind) => boolean) {
  const sessions = new Map<string, SessionTime>();
  return {
    seen(call: { sessionId: string; host: string; kind: HookEventKind; elapsedMs: number | null; nowMs: number }): void {
      const startedMs = call.nowMs - Math.max(0, call.elapsedMs ?? 0);
      let session = sessions.get(call.sessionId);
      if (!session) {
        if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
        session = { host: call.host, startMs: startedMs, lastMs: call.nowMs, blockingMs: 0, blockingCalls: 0 };
        sessions.set(call.sessionId, session);
      }
      session.startMs = Math.min(session.startMs, startedMs);
      session.lastMs = Math.max(session.lastMs, call.nowMs);
      if (call.elapsedMs !== null && blocking(call.host, call.kind)) {
        session.blockingMs += call.elapsedMs;
        session.blockingCalls += 1;
      }
    },
    /** The session ended (or went quiet): fold its share and forget it. */
    finish(sessionId: string, nowMs: number): void {
      const session = sessions.get(sessionId);
      if (!session) return;
      sessions.delete(sessionId);
      const agentMs = session.lastMs - session.startMs;
      if (agentMs <= 0) return;
      const sharePct = (session.blockingMs / agentMs) * 100;
      sink.recordCounters(
        'agent_time_rollup',
        { platform: platformOf(session.host) },
        { sessions: 1, agent_ms: agentMs, blocking_ms: session.blockingMs, blocking_calls: session.blockingCalls, [agentShareBucket(sharePct)]: 1 },
        nowMs,
      );
    },
  };
}
