/**
 * Retention and the size budget (docs/secrets-and-retention.md#retention): what raw data the store keeps and for how long.
 * See docs/secrets-and-retention.md.
 */
export { runRetentionPass, DAY_MS, DEFAULT_RETENTION_BATCH, type RetentionReport } from './retention/retention-pass.js';
export { startRetention, DEFAULT_RETENTION_SCHEDULE, type RetentionSchedule, type RetentionTask } from './retention/retention-task.js';
