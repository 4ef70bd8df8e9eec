import { unseenByWorker, unseenLine } from '../../../providers/observer-env.js';
import { ok, warn, type Finding } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';

/** Which observer runs and why (the worker's word, else what this shell would choose), and what the worker did not see. */
export function checkObserver(s: DoctorSnapshot): Finding[] {
  const observer = workerObserver(s);
  const findings: Finding[] = [];
  if (observer) {
    const line = String(observer.line ?? '');
    const waits = Array.isArray(observer.waits) ? (observer.waits as Array<Record<string, unknown>>) : [];
    const off = s.health?.reachable === true && s.health.body.observing === false;
    if (off) findings.push(warn('observer', `${line}; events are stored, not observed`, NO_OBSERVER_FIX));
    else if (waits.length > 0)
      findings.push(
        warn(
          'observer',
          `${line}; waiting: ${waits.map((w) => `${String(w.provider)} ${String(w.detail ?? w.reason)} (next attempt ${String(w.next_attempt_at)})`).join('; ')}`,
          'log in to the agent CLI (or fix the key); the next session start tries again',
        ),
      );
    else findings.push(ok('observer', line));
    const seen = Array.isArray(observer.env_seen) ? (observer.env_seen as string[]) : null;
    const unseen = seen === null ? [] : unseenByWorker(s.observer.envHere, seen);
    if (unseen.length > 0) findings.push(warn('observer_env', unseenLine(unseen), 'memtrace worker stop && memtrace worker start (from this shell)'));
    return findings;
  }
  const here = s.observer.here;
  if ('error' in here) return [warn('observer', `the observer settings are wrong: ${here.error}`, 'fix the variable named, then memtrace worker start')];
  if (here.line.startsWith('observer: none')) return [warn('observer', `${here.line} (as this shell would start the worker)`, NO_OBSERVER_FIX)];
  return [ok('observer', `${here.line} (as this shell would start the worker)`)];
}

const NO_OBSERVER_FIX =
  'install an agent CLI (Claude Code, Gemini CLI, Codex, OpenCode, Copilot CLI or pi) and log in (noticed at the next session start), or set ANTHROPIC_API_KEY / OPENAI_API_KEY and restart the worker';

function workerObserver(s: DoctorSnapshot): Record<string, unknown> | null {
  if (s.health?.reachable !== true) return null;
  const observer = s.health.body.observer;
  return observer && typeof observer === 'object' ? (observer as Record<string, unknown>) : null;
}
