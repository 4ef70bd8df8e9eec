import type { ShareProjectState } from './share-ledger.js';

/**
 * What is wrong with sharing, in one line (share list, worker status, and doctor's "sharing"
 * finding). Pure: the state as the ledger keeps it, plus whether the URL is still on file.
 */
export interface ShareStatus {
  status: 'ok' | 'warn' | 'fail';
  line: string;
}

export interface ShareStatusInput extends ShareProjectState {
  /** False when DATA_DIR/share.json has no URL for the project. */
  hasUrl: boolean;
}

/** Errors younger than this are a hiccup (warn); older ones a failure. */
const FAILING_AFTER_MS = 10 * 60_000;

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

const name = (project: string) => project.split('/').filter(Boolean).at(-1) ?? project;
const waiting = (n: number) => (n === 0 ? 'nothing waiting' : `${n} waiting to be pushed (kept)`);

export function projectShareStatus(state: ShareStatusInput, nowMs: number): ShareStatus {
  const who = `${name(state.project)} (${state.databaseDisplay})`;
  if (!state.hasUrl) return { status: 'fail', line: `${who}: its connection URL is missing from DATA_DIR/share.json; run memtrace share add again` };
  if (state.lastError) {
    const since = state.failingSince ?? nowMs;
    const line = `${who}: cannot sync since ${ago(nowMs - since)} (${state.lastError.class}: ${state.lastError.message}); ${waiting(state.pending)}`;
    return {
      status:
        nowMs - since >= FAILING_AFTER_MS || state.lastError.class === 'auth' || state.lastError.class === 'schema' || state.lastError.class === 'config'
          ? 'fail'
          : 'warn',
      line,
    };
  }
  if (state.lastSyncAt === null)
    return { status: 'warn', line: `${who}: not synced yet (the worker syncs in the background; memtrace share sync runs it now); ${waiting(state.pending)}` };
  return {
    status: 'ok',
    line: `${who}: synced ${ago(nowMs - state.lastSyncAt)}; pushed ${state.pushed}, pulled ${state.pulled}, ${waiting(state.pending)}`,
  };
}

/** All shared projects in one line: the worst one speaks for them. */
export function sharingStatus(states: readonly ShareStatusInput[], nowMs: number): ShareStatus {
  if (states.length === 0) return { status: 'ok', line: 'no project is shared' };
  const each = states.map((s) => projectShareStatus(s, nowMs));
  const rank = { fail: 2, warn: 1, ok: 0 } as const;
  const worst = each.reduce((a, b) => (rank[b.status] > rank[a.status] ? b : a));
  if (worst.status === 'ok') return { status: 'ok', line: states.length === 1 ? worst.line : `${states.length} projects shared, all in sync` };
  const others = states.length - 1;
  return { status: worst.status, line: others > 0 ? `${worst.line} (+${others} other project(s))` : worst.line };
}
