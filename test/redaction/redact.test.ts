import { describe, expect, it } from 'vitest';
import { RULES, SECRET_KINDS, redactImportLine, redactText, redactValue, type SecretKind } from '../../src/redaction/index.js';
import { nonSecrets, secretSamples } from '../support/secret-samples.js';
import { secretlintFindings } from '../support/secretlint-oracle.js';

const samples = secretSamples(1);

describe('redactText', () => {
  it.each(samples.map((s) => [s.kind, s] as const))('replaces a %s and keeps the text around it', (kind, sample) => {
    const { text, counts } = redactText(sample.text);
    expect(text).not.toContain(sample.secret);
    expect(counts).toEqual({ [kind]: 1 });
    expect(text).toContain(kind === 'private' ? '[PRIVATE]' : `[REDACTED:${kind}]`);
    // The context stays: the observer still learns what the secret was for.
    const [before] = sample.text.split(sample.secret);
    if (kind !== 'private' && kind !== 'private_key') expect(text.startsWith(before!.slice(0, Math.max(0, before!.length - 16)))).toBe(true);
  });

  it('has a sample and a rule for every kind', () => {
    expect(new Set(samples.map((s) => s.kind))).toEqual(new Set(SECRET_KINDS));
    expect(new Set(RULES.map((r) => r.kind))).toEqual(new Set(SECRET_KINDS));
  });

  it.each(nonSecrets().map((n) => [n.name, n.text] as const))('leaves %s unchanged', (_, input) => {
    expect(redactText(input)).toEqual({ text: input, counts: {} });
  });

  it('finds several secrets in one text and counts each', () => {
    const text = samples.map((s) => s.text).join('\n--\n');
    const result = redactText(text);
    for (const s of samples) expect(result.text).not.toContain(s.secret);
    const expected: Partial<Record<SecretKind, number>> = {};
    for (const s of samples) expected[s.kind] = (expected[s.kind] ?? 0) + 1;
    expect(result.counts).toEqual(expected);
  });

  it('is idempotent: redacted text has nothing left to redact', () => {
    const once = redactText(samples.map((s) => s.text).join('\n')).text;
    expect(redactText(once)).toEqual({ text: once, counts: {} });
  });

  it('keeps the user and host of a URL and the scheme of an Authorization header', () => {
    const password = ['hun', 'ter', '2', 'x9Q'].join('');
    expect(redactText(`mysql://root:${password}@localhost:3306/db`).text).toBe('mysql://root:[REDACTED:url_password]@localhost:3306/db');
    const token = ['abc', 'DEF', '123', 'ghiJKL456', 'mno'].join('');
    expect(redactText(`Authorization: Bearer ${token}`).text).toBe('Authorization: Bearer [REDACTED:authorization_header]');
  });

  it('redacts a private key block cut before its END line', () => {
    const key = samples.find((s) => s.kind === 'private_key')!.secret;
    const cut = key.slice(0, key.length / 2);
    const { text, counts } = redactText(`${cut}\n…[elided 900 characters]…`);
    expect(counts).toEqual({ private_key: 1 });
    expect(text).toBe('[REDACTED:private_key]…[elided 900 characters]…');
  });

  it('hides the rest of the text after an unclosed <private> tag', () => {
    expect(redactText('public part <private>the rest is mine').text).toBe('public part [PRIVATE]');
    expect(redactText('a <PRIVATE>b</PRIVATE> c <private>d</private> e')).toEqual({ text: 'a [PRIVATE] c [PRIVATE] e', counts: { private: 2 } });
  });

  it('finishes on hostile input built to make a backtracking pattern quadratic', () => {
    // Each of these is 1 MB of one rule's trigger with nothing that completes a match. The
    // test's time limit is the check: a quadratic scan of 1 MB takes minutes.
    const mb = (unit: string) => unit.repeat(Math.ceil((1 << 20) / unit.length));
    const hostile = [
      mb('eyJ'),
      mb('eyJhbGciOiJIUzI1NiJ9'),
      mb('AKIA'),
      mb('-----BEGIN PRIVATE KEY-----'),
      mb('-----BEGIN PRIVATE KEY-----\nMIIE'),
      mb('://a:'),
      mb('://'),
      mb('Authorization: '),
      mb('Cookie: a'),
      mb('sk-ant-'),
      mb('sk-a1'),
      mb('xoxb-1'),
      mb('<private>'),
      mb('secret_access_key='),
      mb('hooks.slack.com/services/'),
      `${'a'.repeat(1 << 20)}@`,
    ];
    for (const input of hostile) expect(typeof redactText(input).text).toBe('string');
  });
});

describe('redactValue', () => {
  it('redacts every string of a JSON value, keys included, and copies only what changed', () => {
    const gh = samples.find((s) => s.kind === 'github_token')!;
    const untouched = { list: [1, 2, 'plain'] };
    const input = { tool_name: 'Bash', tool_input: { command: gh.text }, tool_response: { stdout: ['ok', gh.secret], untouched }, [gh.secret]: true };
    const { value, counts } = redactValue(input);
    expect(JSON.stringify(value)).not.toContain(gh.secret);
    expect(counts).toEqual({ github_token: 3 });
    expect(value.tool_response.untouched).toBe(untouched);
    expect(input.tool_input.command).toBe(gh.text); // the input is not modified
  });

  it('redacts header fields by their name', () => {
    const token = ['q1w2', 'e3r4', 't5y6'].join('');
    const { value, counts } = redactValue({ headers: { Authorization: `Bearer ${token}`, cookie: 'a=b', Accept: 'text/html' } });
    expect(value).toEqual({ headers: { Authorization: 'Bearer [REDACTED:authorization_header]', cookie: '[REDACTED:cookie_header]', Accept: 'text/html' } });
    expect(counts).toEqual({ authorization_header: 1, cookie_header: 1 });
  });

  it('leaves numbers, booleans and null alone and returns the same object when nothing matched', () => {
    const input = { a: 1, b: [true, null, { c: 'text' }] };
    expect(redactValue(input).value).toBe(input);
  });
});

describe('redactImportLine', () => {
  it('redacts a jsonl line value by value and keeps it valid JSON', () => {
    const s = samples.find((x) => x.kind === 'stripe_key')!;
    const line = JSON.stringify({ session_id: 's', narrative: s.text });
    const result = redactImportLine(line);
    expect(result.line).not.toContain(s.secret);
    expect(JSON.parse(result.line)).toEqual(result.value);
    expect(result.counts).toEqual({ stripe_key: 1 });
  });

  it('redacts a line that is not JSON as text', () => {
    const s = samples.find((x) => x.kind === 'jwt')!;
    const result = redactImportLine(`{not json ${s.secret}`);
    expect(result.line).toBe('{not json [REDACTED:jwt]');
    expect(result.value).toBeUndefined();
  });
});

describe('against secretlint (a maintained scanner) as an oracle', () => {
  it('flags the samples of the kinds its recommended rules cover', () => {
    const flagged = samples.filter((s) => secretlintFindings(s.text).length > 0).map((s) => s.kind);
    for (const kind of [
      'github_token',
      'anthropic_api_key',
      'openai_api_key',
      'slack_token',
      'slack_webhook',
      'private_key',
      'url_password',
      'aws_secret_access_key',
      'npm_token',
    ] as const) {
      expect(flagged).toContain(kind);
    }
  });

  it('finds nothing in what memtrace keeps of any sample', () => {
    const all = [...secretSamples(1), ...secretSamples(2), ...secretSamples(3)];
    // secretlint calls a connection string with any password a finding, our marker included:
    // a finding is a leftover only when no marker stands in it.
    const leftovers = all.flatMap((s) =>
      secretlintFindings(redactText(s.text).text)
        .filter((f) => !f.text.includes('[REDACTED:'))
        .map((f) => `${s.kind}: ${f.ruleId}`),
    );
    expect(leftovers).toEqual([]);
  });

  it('agrees that the non-secrets hold no secret', () => {
    expect(nonSecrets().flatMap((n) => secretlintFindings(n.text).map((f) => `${n.name}: ${f.ruleId}`))).toEqual([]);
  });
});
