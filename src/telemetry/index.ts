export { TELEMETRY_EVENTS, BASE_FIELDS, eventSpec, type EventSpec, type FieldSpec, type FieldType } from './schema.js';
export { scrubProperties, allowedKeys, type ScrubResult } from './scrub.js';
export { normalizeModelId } from './model-id.js';
export { newTurnAccumulator, foldTurn, mergeTurnAccumulators, finalizeTurnRollup, turnRollupDue, TURN_COUNTERS } from './rollups/observer-turn.js';
export { newInjectionAccumulator, foldInjection, finalizeInjectionRollup, INJECTION_WINDOW_MS, windowStartFor } from './rollups/context-injection.js';
export { eventUuid } from './event-id.js';
export { resolveConsent, isDebugMode, errorCaptureEnabled, type Consent, type ConsentLayer } from './consent.js';
export { redactErrorText, errorFingerprint, createExceptionLimiter } from './redact.js';
export { baseProperties } from './base-properties.js';
