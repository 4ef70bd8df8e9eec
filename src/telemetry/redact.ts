import { redactTextInto } from '../redaction/index.js';

/**
 * Error text is the one place free text could leak, so it is capped first (8 KB, before any
 * pattern runs), then passed through the store's secret redactor (every kind it knows, such as
 * a private key block or an AWS secret key after its label), and then stripped of everything
 * that can identify a person or a secret. Every pattern is linear: no nested quantifiers.
 */
export const REDACT_INPUT_CAP = 8 * 1024;

const RULES: Array<[RegExp, string | ((m: string) => string)]> = [
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]{4,}/g, '<jwt>'],
  [/\b[Bb]earer\s+[\w.~+/=-]{8,}/g, 'Bearer <token>'],
  [/\b(?:sk-ant-|sk-|phc_|phx_|ghp_|gho_|ghs_|github_pat_|xox[abprs]-|AIza|glpat-)[\w-]{8,}/g, '<key>'],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, '<cloud-key>'],
  [/\b((?:api[_-]?key|token|secret|password|passwd|auth)["']?\s*[:=]\s*["']?)[^\s"'&,;]{4,}/gi, '$1<redacted>'],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, '<email>'],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi, '$1'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s]*/gi, '$1'],
  [/\b[0-9a-f]{32,}\b/gi, '<hex>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}\b/g, '<ip>'],
  // Absolute paths keep only their basename: the directory names are the user's.
  [/(?:[A-Za-z]:\\|\\\\)[^\s"'<>|]*\\([^\\\s"'<>|]+)/g, (m) => `<path>/${m.split('\\').pop()}`],
  [/(?<![\w.~<])\/(?:[^\s/"'<>:]+\/)+([^\s/"'<>:]+)/g, (m) => `<path>/${m.split('/').pop()}`],
];

export function redactErrorText(text: string, options: { homeDir?: string } = {}): string {
  let out = redactTextInto(String(text).slice(0, REDACT_INPUT_CAP), {});
  if (options.homeDir && options.homeDir.length > 1) out = out.split(options.homeDir).join('~');
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement as string);
  return out.slice(0, 1024);
}

/** A stable id for "the same error": type plus message with numbers folded. */
export function errorFingerprint(type: string, redactedMessage: string): string {
  const basis = `${type}:${redactedMessage.replace(/\d+/g, 'N')}`;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < basis.length; i += 1) {
    const c = basis.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return `${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}`;
}

/** At most one report per fingerprint per window; the report carries how many were held back. */
export function createExceptionLimiter(options: { windowMs?: number; maxFingerprints?: number } = {}) {
  const windowMs = options.windowMs ?? 60_000;
  const max = options.maxFingerprints ?? 1000;
  const seen = new Map<string, { lastEmitMs: number; suppressed: number }>();
  return {
    admit(fingerprint: string, nowMs: number): { emit: boolean; occurrences: number } {
      const entry = seen.get(fingerprint);
      if (entry && nowMs - entry.lastEmitMs < windowMs) {
        entry.suppressed += 1;
        return { emit: false, occurrences: 0 };
      }
      const occurrences = 1 + (entry?.suppressed ?? 0);
      seen.delete(fingerprint);
      if (seen.size >= max) seen.delete(seen.keys().next().value!);
      seen.set(fingerprint, { lastEmitMs: nowMs, suppressed: 0 });
      return { emit: true, occurrences };
    },
  };
}
