/**
 * Secret redaction (docs/secrets-and-retention.md#redaction): pure, synchronous and cheap to load (no
 * dependencies), so the hook bundles it for its spool and every edge of the worker runs it
 * before the first write. See docs/secrets-and-retention.md.
 */
export { SECRET_KINDS, addCounts, totalRedactions, type SecretKind, type RedactionCounts } from './redaction/kinds.js';
export { redactText, redactTextInto } from './redaction/scan.js';
export { redactValue, redactValueInto } from './redaction/redact-value.js';
export { redactImportLine } from './redaction/import-line.js';
export { RULES } from './redaction/rules.js';
