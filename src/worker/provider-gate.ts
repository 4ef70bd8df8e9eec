import { retryDelayMs, type BackoffSchedule, type ProviderWaitReason } from './failure-policy.js';

export interface ProviderGateConfig {
  /** rate_limit and overloaded: the provider is busy. */
  busy: BackoffSchedule;
  /** auth and quota: a person must act (a key, a bill); probe rarely. */
  refused: BackoffSchedule;
}

export type Admission = { go: true; probe: boolean } | { go: false; untilMs: number | null };

export interface ProviderWaitStatus {
  reason: ProviderWaitReason;
  next_attempt_at: string;
  failures: number;
}

/**
 * Provider-wide waits as a small state machine. When the provider says "wait", no session
 * calls it until the wait is over; then exactly one probe call goes, and only its success
 * opens the gate for everyone. Pure: time comes in as values.
 */
export function createProviderGate(config: ProviderGateConfig) {
  let wait: { reason: ProviderWaitReason; untilMs: number; failures: number; probing: boolean } | null = null;

  return {
    admit(nowMs: number): Admission {
      if (!wait) return { go: true, probe: false };
      if (nowMs < wait.untilMs) return { go: false, untilMs: wait.untilMs };
      // The probe's own ending wakes the loop; no timer is needed while it runs.
      if (wait.probing) return { go: false, untilMs: null };
      wait.probing = true;
      return { go: true, probe: true };
    },
    succeeded(): boolean {
      const wasWaiting = wait !== null;
      wait = null;
      return wasWaiting;
    },
    /** The provider said wait; returns when the next probe may go. */
    failed(reason: ProviderWaitReason, retryAfterMs: number | null, nowMs: number): number {
      const failures = (wait?.failures ?? 0) + 1;
      const schedule = reason === 'auth' || reason === 'quota' ? config.refused : config.busy;
      const untilMs = Math.max(wait?.untilMs ?? 0, nowMs + retryDelayMs(failures - 1, schedule, retryAfterMs));
      wait = { reason, untilMs, failures, probing: false };
      return untilMs;
    },
    /**
     * Something a person does may have ended a refusal (a CLI installed or logged in, noticed at a
     * session start): the next probe may go now rather than after its backoff. Busy waits (429,
     * 529) and a usage limit's reset keep their time.
     */
    expedite(nowMs: number): boolean {
      if (wait?.reason !== 'auth' || wait.probing || wait.untilMs <= nowMs) return false;
      wait.untilMs = nowMs;
      return true;
    },
    /** The probe ended without a verdict from the provider (timeout, transport, shutdown): another may go. */
    probeEnded(): void {
      if (wait) wait.probing = false;
    },
    status(): ProviderWaitStatus | null {
      return wait ? { reason: wait.reason, next_attempt_at: new Date(wait.untilMs).toISOString(), failures: wait.failures } : null;
    },
  };
}

export type ProviderGate = ReturnType<typeof createProviderGate>;
