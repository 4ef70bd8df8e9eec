/**
 * Why a shared database could not be used, as a closed vocabulary: src/share/ classifies its
 * failures into it and share_rollup counts them by it, so neither imports the other.
 */
export const SHARE_FAILURE_CLASSES = ['config', 'refused', 'timeout', 'dns', 'auth', 'tls', 'no_database', 'permission', 'schema', 'server', 'other'] as const;
export type ShareFailureClass = (typeof SHARE_FAILURE_CLASSES)[number];
