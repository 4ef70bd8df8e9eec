import type { ObservationType } from '../vocabulary/observation.js';
import type { OutputClass } from './types.js';
import type { ProviderName } from '../vocabulary/provider-name.js';
import type { Platform } from '../hosts/platforms.js';

/** Why a turn ended without a reply being parsed. Mirrors the rollup's abort_reason_* keys. */
export const ABORT_REASONS = ['idle', 'shutdown', 'quota', 'auth', 'rate_limit', 'overloaded', 'transport', 'bad_request'] as const;
export type AbortReason = (typeof ABORT_REASONS)[number];

/**
 * One observer turn as plain values: the contract between the worker, which produces it, and
 * telemetry, which folds it (neither imports the other for it).
 * outcome: ok = a reply was handled (parsed or dropped); error = a provider failure that
 * released or confirmed the message; aborted = the turn was cut short (shutdown, idle).
 */
export interface TurnRecord {
  sessionId: string;
  /** Queue ids of the batch this turn answered: the tool events of one agent turn, and its end when it came. */
  messageIds: number[];
  /** How many of them were tool events. */
  events: number;
  outcome: 'ok' | 'error' | 'aborted';
  /** null when no reply was received. */
  parse: 'parsed' | 'dropped' | null;
  outputClass: OutputClass | null;
  abortReason: AbortReason | null;
  observationsByType: Partial<Record<ObservationType, number>>;
  observationsCreated: number;
  summaryCreated: boolean;
  /** Claims found false (a commit the repository does not hold): their statements were removed. */
  claimsRejected: number;
  /** Claims that could not be checked (no repository, git missing, slow or broken): kept, marked. */
  claimsUnverifiable: number;
  /** files_modified entries no tool event of the session shows written: removed. */
  fileClaimsRemoved: number;
  /** null = unknown (counted as unknown, never as 0). */
  tokens: { input: number; output: number } | null;
  costUsd: number | null;
  durationMs: number;
  provider: ProviderName;
  model: string | null;
  /** The agent host of the message's session, when the worker knows it (it adds it; the turn's producers do not). */
  platform?: Platform | null;
}
