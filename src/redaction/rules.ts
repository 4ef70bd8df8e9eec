import type { SecretKind } from './kinds.js';

/**
 * The rules: what each kind looks like. Every rule has a cheap literal trigger (the scanner
 * searches for the triggers of all rules in one pass and runs a rule only where its trigger
 * is) and a sticky, bounded pattern run at that position. A token must start where a run of
 * its own characters starts (a look-behind), so a long run of trigger-like characters is tried
 * once, not once per character: no input makes the scan quadratic.
 *
 * Sources. gitleaks = the default rule set of gitleaks (config/gitleaks.toml, rule ids named
 * below); secretlint = @secretlint/secretlint-rule-preset-recommend (rule packages named below),
 * which the tests run as an oracle over the same samples. Where a rule is wider than its
 * source, the comment says how and why.
 */
export interface Span {
  /** The characters to replace (the rest of the match, such as a label or scheme, is kept). */
  start: number;
  end: number;
}

export interface ScanMemo {
  /** text.indexOf(needle, from), remembered so repeated triggers do not rescan the same text. */
  nextIndexOf(needle: string, from: number): number;
}

export interface Rule {
  kind: SecretKind;
  /** A regular-expression source of literals (no quantifiers): where the rule may match. */
  trigger: string;
  /** The span to replace for a trigger at `at`, or null. */
  match(text: string, at: number, memo: ScanMemo): Span | null;
}

/** The whole match of a sticky pattern at `at`, when `accept` agrees. */
function sticky(pattern: RegExp, accept: (token: string) => boolean = () => true) {
  return (text: string, at: number): Span | null => {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (m === null || !accept(m[0])) return null;
    return { start: at, end: at + m[0].length };
  };
}

/** The last capture group of a sticky pattern at `at` (the value after a label); the pattern needs the `d` flag. */
function stickyValue(pattern: RegExp, accept: (value: string) => boolean = () => true) {
  return (text: string, at: number): Span | null => {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    const last = m === null ? -1 : m.length - 1;
    const value = m?.[last];
    const where = m?.indices?.[last];
    if (value === undefined || where === undefined || !accept(value)) return null;
    return { start: where[0], end: where[1] };
  };
}

const hasDigitAndLetter = (s: string) => /\d/.test(s) && /[A-Za-z]/.test(s);

/** Values that name a secret instead of holding one: `${DB_PASSWORD}`, `{{ token }}`, `$PASS`, `****`. */
const PLACEHOLDER = /^(?:\$\{[^}]*\}|\{\{[^}]*\}\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\*+|x+|X+|\.{3}|password|pass|secret|changeme)$/i;

const PEM_HEADER = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_FOOTER = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/y;
/** Longest key block looked at: an RSA-16384 PEM is about 12.5 kB. */
const PEM_MAX_CHARS = 16_384;
const PRIVATE_CLOSE = /<\/private>/gi;

export const RULES: readonly Rule[] = [
  {
    // gitleaks aws-access-token: (?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}; widened to
    // [A-Z0-9] as secretlint-rule-aws has it. Boundaries exclude base64 characters so a key-like
    // run inside an image's base64 is not cut.
    kind: 'aws_access_key_id',
    trigger: 'A3T|AKIA|ASIA|ABIA|ACCA',
    match: sticky(/(?<![A-Za-z0-9+/])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9+/=])/y),
  },
  {
    // secretlint-rule-aws (AWSSecretAccessKey, from git-secrets): a label
    // aws?_?secret_?access_?key, a connector (: = =>), then 40 base64 characters. The label is
    // matched from "ecret" on, so `SecretAccessKey` (JSON from the AWS CLI) counts too.
    kind: 'aws_secret_access_key',
    trigger: 'ecret|ECRET',
    match: stickyValue(
      /(?:ecret|ECRET)[_-]?(?:access|Access|ACCESS)[_-]?(?:key|Key|KEY)["']?[ \t]*(?::|=>|=)[ \t]*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dy,
    ),
  },
  {
    // gitleaks github-pat, github-oauth, github-app-token, github-refresh-token
    // (gh[pousr]_ + 36 alphanumerics) and github-fine-grained-pat (github_pat_ + 82 word
    // characters); secretlint-rule-github. Longer tails are allowed: GitHub may lengthen tokens.
    kind: 'github_token',
    trigger: 'gh[pousr]_|github_pat_',
    match: sticky(/(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{59,240})(?![A-Za-z0-9_])/y),
  },
  {
    // gitleaks gitlab-pat (glpat- + 20 word characters); newer tokens are longer.
    kind: 'gitlab_token',
    trigger: 'glpat-',
    match: sticky(/(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/y),
  },
  {
    // gitleaks anthropic-api-key (sk-ant-api03- + 93 + AA) and anthropic-admin-api-key
    // (sk-ant-admin01-); secretlint-rule-anthropic (sk-ant-api0N-). Widened to every
    // sk-ant-<word><NN>- prefix, which also covers Claude Code's OAuth tokens (sk-ant-oat01-,
    // sk-ant-ort01-), the credential a Claude Code user is most likely to have on disk.
    kind: 'anthropic_api_key',
    trigger: 'sk-ant-',
    match: sticky(/(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/y),
  },
  {
    // gitleaks openai-api-key and secretlint-rule-openai: sk-(proj|svcacct|admin)- keys and
    // legacy sk- keys, both holding "T3BlbkFJ". Widened to any sk- key of 32+ characters that
    // mixes letters and digits, which also takes OpenAI-compatible providers' keys (OpenRouter
    // sk-or-v1-, DeepSeek sk- + 32 hex) that memtrace's own OPENAI_API_KEY may hold.
    kind: 'openai_api_key',
    trigger: 'sk-',
    match: sticky(/(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|or-v1)-)?[A-Za-z0-9_-]{32,300}(?![A-Za-z0-9_-])/y, hasDigitAndLetter),
  },
  {
    // gitleaks slack-bot-token (xoxb-), slack-user-token (xox[pe]-), slack-app-token (xapp-),
    // slack-legacy-* (xox[ars]-), slack-config-*-token (xoxe-); secretlint-rule-slack
    // (xox[bpaor]|xapp)-(\d-)?(…-)+…. One pattern for the family, numbers required.
    kind: 'slack_token',
    trigger: 'xox[abposre]-|xapp-',
    match: sticky(/(?<![A-Za-z0-9_-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/y, (t) => /\d/.test(t)),
  },
  {
    // gitleaks slack-webhook-url and secretlint-rule-slack (IncomingWebhook); the host and
    // path kind stay, the secret path goes.
    kind: 'slack_webhook',
    trigger: 'hooks\\.slack\\.com/',
    match: stickyValue(/hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9+/_-]{20,200})/dy),
  },
  {
    // gitleaks stripe-access-token: (sk|rk)_(test|live|prod)_ + 10–99 alphanumerics; Stripe
    // documents keys up to 255 characters. Publishable keys (pk_) are public by design.
    kind: 'stripe_key',
    trigger: '[sr]k_(?:live|test|prod)_',
    match: sticky(/(?<![A-Za-z0-9_])[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9])/y),
  },
  {
    // gitleaks gcp-api-key: AIza + 35 characters of [\w-].
    kind: 'google_api_key',
    trigger: 'AIza',
    match: sticky(/(?<![A-Za-z0-9_+/-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/y),
  },
  {
    // gitleaks npm-access-token and secretlint-rule-npm (NPM_ACCESS_TOKEN): npm_ + 36 alphanumerics.
    kind: 'npm_token',
    trigger: 'npm_',
    match: sticky(/(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y),
  },
  {
    // gitleaks huggingface-access-token: hf_ + 34 letters (digits allowed here).
    kind: 'huggingface_token',
    trigger: 'hf_',
    match: sticky(/(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])/y, hasDigitAndLetter),
  },
  {
    // gitleaks sendgrid-api-token and secretlint-rule-sendgrid: SG. + 22 + . + 43.
    kind: 'sendgrid_api_key',
    trigger: 'SG\\.',
    match: sticky(/(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y),
  },
  {
    // gitleaks private-key (-----BEGIN … PRIVATE KEY----- … KEY-----) and
    // secretlint-rule-privatekey. Wider: a block cut before its END line (a tool output shortened
    // in the middle of a key) is redacted up to where its base64 body stops.
    kind: 'private_key',
    trigger: '-----BEGIN',
    match(text, at, memo) {
      PEM_HEADER.lastIndex = at;
      const header = PEM_HEADER.exec(text);
      if (header === null) return null;
      const bodyStart = at + header[0].length;
      const footer = memo.nextIndexOf('-----END', bodyStart);
      if (footer >= 0 && footer - bodyStart <= PEM_MAX_CHARS) {
        PEM_FOOTER.lastIndex = footer;
        const end = PEM_FOOTER.exec(text);
        if (end !== null) return { start: at, end: footer + end[0].length };
      }
      let stop = bodyStart;
      const limit = Math.min(text.length, bodyStart + PEM_MAX_CHARS);
      while (stop < limit && isPemBodyChar(text.charCodeAt(stop))) stop += 1;
      return { start: at, end: stop };
    },
  },
  {
    // gitleaks jwt: ey… . ey… . signature (header and payload are base64url JSON objects). The
    // signature may be empty (alg "none").
    kind: 'jwt',
    trigger: 'eyJ',
    match: sticky(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.ey[A-Za-z0-9_-]{8,16384}\.[A-Za-z0-9_-]{0,4096}(?![A-Za-z0-9_-])/y),
  },
  {
    // secretlint-rule-basicauth and secretlint-rule-database-connection-string
    // (scheme://user:password@host); any scheme here, and only the password is replaced so the
    // observer still sees which service and user. Placeholders (${DB_PASSWORD}, ****) stay.
    kind: 'url_password',
    trigger: '://',
    match: stickyValue(/:\/\/[^\s:/@?#"'<>\\[\]]{0,256}:([^\s/@?#"'<>\\[\]]{1,256})@/dy, (password) => !PLACEHOLDER.test(password)),
  },
  {
    // gitleaks curl-auth-header (Authorization: Basic|Bearer|Token …). Any Authorization header,
    // in HTTP text, curl arguments or JSON; the scheme word stays. Without a scheme the value
    // must be a token of 16+ characters, so prose ("authorization: required") is left alone.
    kind: 'authorization_header',
    trigger: '[Aa]uthorization|AUTHORIZATION',
    match(text, at) {
      AUTHORIZATION.lastIndex = at;
      const m = AUTHORIZATION.exec(text);
      if (m === null) return null;
      const scheme = m[1];
      const value = m[2]!;
      if (scheme === undefined ? value.length < 16 : value.length < 4) return null;
      const end = at + m[0].length;
      return { start: end - value.length, end };
    },
  },
  {
    // Cookie and Set-Cookie header values (name=value…) to the end of the line or quote: a
    // session cookie is a bearer credential. Hand-written; no scanner above has a cookie rule.
    kind: 'cookie_header',
    trigger: '[Cc]ookie|COOKIE',
    match: stickyValue(/(?:[Cc]ookie|COOKIE)["']?[ \t]*:[ \t]*["']?([^\s;=:"'\\]{1,256}=[^\r\n"'\\]{0,4096})/dy),
  },
  {
    // memtrace's own convention (docs/secrets-and-retention.md#redaction): everything between <private> and
    // </private> goes, tags included. An unclosed tag hides the rest of the text.
    kind: 'private',
    trigger: '<[Pp][Rr][Ii][Vv][Aa][Tt][Ee]>',
    match(text, at) {
      PRIVATE_CLOSE.lastIndex = at + 9;
      const close = PRIVATE_CLOSE.exec(text);
      return { start: at, end: close === null ? text.length : close.index + close[0].length };
    },
  },
];

const AUTHORIZATION =
  /(?:[Aa]uthorization|AUTHORIZATION)["']?[ \t]*[:=][ \t]*["']?(?:(Bearer|bearer|BEARER|Basic|basic|BASIC|Token|token|Digest|Negotiate|Bot|Key|key)[ \t]+)?([^\s"',;\\[][^\s"',;\\]{0,4095})/y;

function isPemBodyChar(code: number): boolean {
  // A–Z a–z 0–9 + / = whitespace and the backslash of an escaped \n.
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    code === 61 ||
    code === 92 ||
    code === 10 ||
    code === 13 ||
    code === 32 ||
    code === 9
  );
}
