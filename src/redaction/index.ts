/**
 * Secret redaction (docs/secrets-and-retention.md#redaction): pure, synchronous and cheap to load (no
 * dependencies), so the hook bundles it for its spool and every edge of the worker runs it
 * before the first write. See docs/secrets-and-retention.md.
 */
export { SECRET_KINDS, addCounts, totalRedactions, type SecretKind, type RedactionCounts } from './kinds.js';
export { redactText, redactTextInto } from './scan.js';
export { redactValue, redactValueInto } from './redact-value.js';
export { redactImportLine } from './import-line.js';
export { RULES } from './rules.js';
