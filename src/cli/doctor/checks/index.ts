import type { Check } from '../finding.js';
import type { DoctorSnapshot } from '../snapshot.js';
import { checkBudget } from './budget.js';
import { checkConfig } from './config.js';
import { checkForwarder } from './forwarder.js';
import { checkHooks } from './hooks.js';
import { checkObserver } from './observer.js';
import { checkSharing } from './sharing.js';
import { checkSpool } from './spool.js';
import { checkWorkerStart } from './start.js';
import { checkDisk, checkStore } from './store.js';
import { checkTelemetry } from './telemetry.js';
import { checkVersions } from './versions.js';
import { checkWorker } from './worker.js';

/**
 * Every check, in the order `memtrace doctor` prints them. A new area is one more pure function
 * of the snapshot here, with what it reads added to snapshot.ts and gather.ts.
 */
export const CHECKS: ReadonlyArray<Check<DoctorSnapshot>> = [
  checkConfig,
  checkVersions,
  checkWorker,
  checkWorkerStart,
  checkForwarder,
  checkHooks,
  checkObserver,
  checkBudget,
  checkStore,
  checkDisk,
  checkSpool,
  checkTelemetry,
  checkSharing,
];
