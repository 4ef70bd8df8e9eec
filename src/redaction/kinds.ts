/**
 * What redaction recognises, as a closed list: telemetry counts redactions by these names
 * (`redaction_rollup`), and the replacement text names them (`[REDACTED:<kind>]`).
 */
export const SECRET_KINDS = [
  'aws_access_key_id',
  'aws_secret_access_key',
  'github_token',
  'gitlab_token',
  'anthropic_api_key',
  'openai_api_key',
  'slack_token',
  'slack_webhook',
  'stripe_key',
  'google_api_key',
  'npm_token',
  'huggingface_token',
  'sendgrid_api_key',
  'private_key',
  'jwt',
  'url_password',
  'authorization_header',
  'cookie_header',
  // `<private>…</private>` spans: the user marked them, whatever they hold.
  'private',
] as const;

export type SecretKind = (typeof SECRET_KINDS)[number];

/** Redactions by kind; a kind never seen is absent. */
export type RedactionCounts = Partial<Record<SecretKind, number>>;

const PRIVATE_REPLACEMENT = '[PRIVATE]';

export function replacementFor(kind: SecretKind): string {
  return kind === 'private' ? PRIVATE_REPLACEMENT : `[REDACTED:${kind}]`;
}

/** Adds `more` into `into` (in place) and returns it. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const kind of Object.keys(more) as SecretKind[]) into[kind] = (into[kind] ?? 0) + (more[kind] ?? 0);
  return into;
}

export function totalRedactions(counts: RedactionCounts): number {
  let total = 0;
  for (const kind of Object.keys(counts) as SecretKind[]) total += counts[kind] ?? 0;
  return total;
}
