import type { SecretKind } from '../../src/redaction/index.js';

/**
 * Real-shaped secrets of every kind, built at run time from parts and a seeded generator, so
 * this repository holds no string a secret scanner would flag. `canary` tags each sample so a
 * test can grep files for it byte by byte.
 */
export interface SecretSample {
  kind: SecretKind;
  /** The text a tool could print: the secret in its usual surroundings. */
  text: string;
  /** The secret itself: what must never reach disk. */
  secret: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;

export function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** Builds samples; the same seed gives the same samples. */
export function secretSamples(seed = 1): SecretSample[] {
  const random = seeded(seed);
  const pick = (alphabet: string, n: number) => {
    let s = '';
    for (let i = 0; i < n; i += 1) s += alphabet[Math.floor(random() * alphabet.length)];
    // Real tokens mix letters and digits; make sure a short draw from a mixed alphabet does too.
    const mixed = alphabet.includes('a') && alphabet.includes('0');
    return mixed && n >= 8 ? `${s.slice(0, n - 2)}${DIGITS[Math.floor(random() * 10)]}${LOWER[Math.floor(random() * 26)]}` : s;
  };
  const join = (...parts: string[]) => parts.join('');
  const b64Body = (bytes: number) => {
    let s = join('M', 'II', pick(B64, Math.ceil((bytes * 4) / 3) - 3));
    const lines: string[] = [];
    for (let i = 0; i < s.length; i += 64) lines.push(s.slice(i, i + 64));
    s = lines.join('\n');
    return s;
  };
  const jwtPart = (json: string) => Buffer.from(json).toString('base64url');
  const samples: Array<[SecretKind, string, (s: string) => string]> = [
    ['aws_access_key_id', join('AK', 'IA', pick(`${UPPER}234567`, 16)), (s) => `aws_access_key_id = ${s}`],
    ['aws_access_key_id', join('AS', 'IA', pick(`${UPPER}234567`, 16)), (s) => `"AccessKeyId": "${s}",`],
    ['aws_secret_access_key', pick(B64, 40), (s) => `aws_secret_access_key = ${s}`],
    ['aws_secret_access_key', pick(B64, 40), (s) => `{"SecretAccessKey": "${s}", "SessionToken": "…"}`],
    ['github_token', join('gh', 'p_', pick(ALNUM, 36)), (s) => `export GITHUB_TOKEN=${s}`],
    ['github_token', join('gh', 's_', pick(ALNUM, 36)), (s) => `token: ${s}`],
    ['github_token', join('github', '_pat_', pick(ALNUM, 22), '_', pick(ALNUM, 59)), (s) => `git clone https://${s}@github.com/o/r`],
    ['gitlab_token', join('gl', 'pat-', pick(`${ALNUM}_-`, 20)), (s) => `PRIVATE-TOKEN: ${s}`],
    ['anthropic_api_key', join('sk-', 'ant-', 'api03-', pick(B64URL, 93), 'AA'), (s) => `ANTHROPIC_API_KEY=${s}`],
    ['anthropic_api_key', join('sk-', 'ant-', 'oat01-', pick(B64URL, 93), 'AA'), (s) => `{"accessToken":"${s}"}`],
    ['openai_api_key', join('sk-', 'proj-', pick(B64URL, 74), 'T3Blbk', 'FJ', pick(B64URL, 74)), (s) => `OPENAI_API_KEY="${s}"`],
    ['openai_api_key', join('sk-', pick(ALNUM, 20), 'T3Blbk', 'FJ', pick(ALNUM, 20)), (s) => `openai.api_key = '${s}'`],
    ['slack_token', join('xo', 'xb-', pick(DIGITS, 12), '-', pick(DIGITS, 13), '-', pick(ALNUM, 24)), (s) => `SLACK_BOT_TOKEN=${s}`],
    [
      'slack_token',
      join('xo', 'xp-', pick(DIGITS, 12), '-', pick(DIGITS, 12), '-', pick(DIGITS, 13), '-', pick(`abcdef${DIGITS}`, 32)),
      (s) => `slack token ${s} expires`,
    ],
    [
      'slack_webhook',
      join('T', pick(UPPER + DIGITS, 10), '/B', pick(UPPER + DIGITS, 10), '/', pick(ALNUM, 24)),
      (s) => `curl -X POST https://hooks.slack.com/services/${s} -d '{}'`,
    ],
    ['stripe_key', join('sk', '_live_', pick(ALNUM, 99)), (s) => `Stripe.api_key = "${s}"`],
    ['stripe_key', join('rk', '_test_', pick(ALNUM, 24)), (s) => `STRIPE_RESTRICTED=${s}`],
    ['google_api_key', join('AI', 'za', pick(`${ALNUM}-_`, 35)), (s) => `https://maps.googleapis.com/maps/api/js?key=${s}&callback=init`],
    ['npm_token', join('np', 'm_', pick(ALNUM, 36)), (s) => `//registry.npmjs.org/:_authToken=${s}`],
    ['huggingface_token', join('h', 'f_', pick(UPPER + LOWER, 32), pick(DIGITS, 2)), (s) => `HF_TOKEN=${s}`],
    ['sendgrid_api_key', join('S', 'G.', pick(B64URL, 22), '.', pick(B64URL, 43)), (s) => `SENDGRID_API_KEY=${s}`],
    [
      'private_key',
      join('-----BEGIN ', 'RSA PRIVATE', ' KEY-----\n', b64Body(600), '\n-----END ', 'RSA PRIVATE', ' KEY-----'),
      (s) => `$ cat ~/.ssh/id_rsa\n${s}\n$ `,
    ],
    [
      'private_key',
      join('-----BEGIN ', 'OPENSSH PRIVATE', ' KEY-----\n', 'b3BlbnNzaC1rZXktdjE', pick(B64, 300), '\n-----END ', 'OPENSSH PRIVATE', ' KEY-----'),
      (s) => `${s}\n`,
    ],
    [
      'jwt',
      join(jwtPart('{"alg":"HS256","typ":"JWT"}'), '.', jwtPart(`{"sub":"${pick(DIGITS, 10)}","name":"A User","iat":1516239022}`), '.', pick(B64URL, 43)),
      (s) => `Set the header to ${s} and retry`,
    ],
    ['url_password', pick(ALNUM, 18), (s) => `DATABASE_URL=postgres://app_user:${s}@db.internal:5432/app`],
    ['url_password', pick(`${ALNUM}!$&*`, 14), (s) => `git remote add origin https://deploy:${s}@git.example.com/team/repo.git`],
    ['authorization_header', pick(B64URL, 40), (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com/v1/me`],
    ['authorization_header', Buffer.from(`admin:${pick(ALNUM, 16)}`).toString('base64'), (s) => `> GET / HTTP/1.1\n> authorization: Basic ${s}\n> accept: */*`],
    ['cookie_header', join('session=', pick(B64URL, 32), '; csrftoken=', pick(ALNUM, 24)), (s) => `Cookie: ${s}\nUser-Agent: curl/8.5.0`],
    ['cookie_header', join('sid=', pick(ALNUM, 40)), (s) => `< Set-Cookie: ${s}; Path=/; HttpOnly\n< Content-Length: 0`],
    ['private', join('my bank PIN is ', pick(DIGITS, 6)), (s) => `note to self: <private>${s}</private> — do not share`],
  ];
  return samples.map(([kind, secret, wrap]) => ({ kind, secret, text: wrap(secret) }));
}

/** Text that looks technical but holds no secret: every one must be stored unchanged. */
export function nonSecrets(seed = 2): Array<{ name: string; text: string }> {
  const random = seeded(seed);
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
  const base64Image = Buffer.from(Array.from({ length: 30_000 }, () => Math.floor(random() * 256))).toString('base64');
  return [
    { name: 'a git commit hash', text: `commit ${hex(40)}\nAuthor: A Developer <dev@example.com>` },
    { name: 'a short commit hash in a log', text: `${hex(7)} Fix the parser (#123)` },
    { name: 'a UUID', text: `session ${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)} started` },
    { name: 'a base64 image', text: `<img src="data:image/png;base64,${base64Image}">` },
    {
      name: 'a long identifier',
      text: 'const thisIsAVeryLongIdentifierNameUsedAcrossTheCodebase_withSuffix_v2 = createSecretManagerClientForTheAccessKeyRotationJob();',
    },
    { name: 'a sha256 checksum', text: `sha256:${hex(64)}  memtrace-0.2.0.tgz` },
    { name: 'a URL with a port and no password', text: 'http://localhost:8080/path@v2?user=me and ssh://git@github.com:22/o/r.git' },
    { name: 'a URL password placeholder', text: 'postgres://app:${DB_PASSWORD}@db:5432/app' },
    { name: 'prose about authorization and cookies', text: 'The authorization: step checks the cookie: it must be fresh. Secret access keys rotate.' },
    { name: 'a publishable Stripe key', text: 'pk_live_51H8abcdefghijklmnopqrstuv' },
    { name: 'code that names secrets', text: 'const token = process.env.GITHUB_TOKEN; if (!aws_secret_access_key) throw new Error("missing");' },
    { name: 'an npm package path', text: 'node_modules/npm_lifecycle/index.js and hf_hub_download()' },
  ];
}
