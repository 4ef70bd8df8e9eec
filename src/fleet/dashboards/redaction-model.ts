import type { Random } from './prng.js';
import { REDACTION_KINDS } from './fleet-measures.js';

/**
 * How often a session's tool calls carry a secret, and which: a guess from what coding agents
 * read (env files, cloud CLIs, curl with headers, database URLs), used only to fill the
 * simulated fleet. Weights are relative; a kind not listed is rare.
 */
/** Typed by the schema's kinds, so a kind the redactor drops stops the build here. */
const KIND_WEIGHTS: Readonly<Partial<Record<(typeof REDACTION_KINDS)[number], number>>> = {
  authorization_header: 0.2,
  url_password: 0.14,
  aws_access_key_id: 0.09,
  aws_secret_access_key: 0.07,
  github_token: 0.09,
  anthropic_api_key: 0.07,
  openai_api_key: 0.06,
  jwt: 0.07,
  private_key: 0.03,
  cookie_header: 0.05,
  private: 0.04,
  stripe_key: 0.02,
  slack_token: 0.02,
  google_api_key: 0.02,
};
/** Share of sessions whose tool calls hold at least one secret. */
const SESSIONS_WITH_SECRETS = 0.18;
/** Share of those caught in a transcript (mining) rather than a hook call. */
const FROM_TRANSCRIPT = 0.1;
const WINDOW_MS = 300_000;

function pickKind(random: Random): string {
  const total = Object.values(KIND_WEIGHTS).reduce((a, b) => a + (b ?? 0), 0);
  let r = random() * total;
  for (const [kind, weight] of Object.entries(KIND_WEIGHTS)) {
    r -= weight ?? 0;
    if (r <= 0) return kind;
  }
  return REDACTION_KINDS[0];
}

/** The session's redaction_rollup windows (zero or one), as a memtrace install with redaction sends them. */
export function sessionRedactionWindows(random: Random, startMs: number, endMs: number): Array<{ timestamp: number; properties: Record<string, unknown> }> {
  if (random() >= SESSIONS_WITH_SECRETS) return [];
  const counts: Record<string, number> = {};
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i += 1) {
    const kind = pickKind(random);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  const at = startMs + Math.floor(random() * Math.max(1, endMs - startMs));
  const windowStart = Math.floor(at / WINDOW_MS) * WINDOW_MS;
  return [
    {
      timestamp: windowStart + WINDOW_MS,
      properties: { edge: random() < FROM_TRANSCRIPT ? 'transcript' : 'hook_api', ...counts, total: n, window_start_ts: windowStart },
    },
  ];
}
