import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';

/** The measure ids are fixed (docs/interfaces.md#dashboards-review); abort reasons in the schema's order. */
const MEASURE_IDS = [
  'turns_dropped_rate',
  ...['idle', 'shutdown', 'quota', 'auth', 'rate_limit', 'overloaded', 'transport', 'bad_request'].map((r) => `abort_rate_${r}`),
  'poisoned_share',
  'observations_per_turn',
  'cost_per_observation',
  'tokens_saved_per_injection',
  'hook_ms_per_call',
];

describe('memtrace dashboards review', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let db: string;
  const run = async (...args: string[]) => {
    const c = captureIO();
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };

  beforeAll(async () => {
    temp = makeTempDir();
    db = path.join(temp.dir, 'collector.db');
    const sim = await run('collector', '--simulate', '--exit', '--db', db, '--installs', '60', '--effect', 'turns_dropped_rate:-0.4@0.3.0');
    expect(sim.code).toBe(0);
    expect(sim.stdout).toContain('releases 0.1.0, 0.2.0, 0.3.0');
  }, 120_000);
  afterAll(() => temp?.cleanup());

  it('prints every measure with its interval, difference, verdict and minimum detectable effect', async () => {
    const r = await run('dashboards', 'review', '--db', db, '--baseline', '0.1.0', '--candidate', '0.2.0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Release review: 0.1.0 → 0.2.0');
    for (const id of MEASURE_IDS) expect(r.stdout).toMatch(new RegExp(`^${id} `, 'm'));
    // 600 ms a hook call on 0.1.x, about 70 on 0.2.x.
    expect(r.stdout).toMatch(/^hook_ms_per_call .* better /m);
  }, 60_000);

  it('prints the JSON shape of docs/interfaces.md#dashboards-review exactly', async () => {
    const r = await run('dashboards', 'review', '--db', db, '--baseline', '0.2.0', '--candidate', '0.3.0', '--json');
    expect(r.code).toBe(0);
    const review = JSON.parse(r.stdout);
    expect(Object.keys(review)).toEqual(['baseline', 'candidate', 'measures']);
    expect(review).toMatchObject({ baseline: '0.2.0', candidate: '0.3.0' });
    expect(review.measures.map((m: { id: string }) => m.id)).toEqual(MEASURE_IDS);
    for (const m of review.measures) {
      expect(Object.keys(m)).toEqual(['id', 'baseline', 'candidate', 'difference', 'verdict', 'min_detectable']);
      expect(Object.keys(m.baseline)).toEqual(['value', 'low', 'high', 'installs']);
      expect(Object.keys(m.candidate)).toEqual(['value', 'low', 'high', 'installs']);
      expect(Object.keys(m.difference)).toEqual(['value', 'low', 'high']);
      expect(['better', 'worse', 'no_change', 'insufficient_data']).toContain(m.verdict);
    }
    const dropped = review.measures[0];
    expect(dropped.candidate.value).toBeLessThan(dropped.baseline.value);
    expect(dropped.difference.low).toBeLessThanOrEqual(dropped.difference.value);
    expect(dropped.difference.high).toBeGreaterThanOrEqual(dropped.difference.value);
  }, 60_000);

  it('writes Markdown for a release pull request', async () => {
    const file = path.join(temp.dir, 'review.md');
    const r = await run('dashboards', 'review', '--db', db, '--baseline', '0.1.0', '--candidate', '0.2.0', '--markdown', file);
    expect(r.code).toBe(0);
    const markdown = fs.readFileSync(file, 'utf8');
    expect(markdown).toContain('### Release review: 0.1.0 → 0.2.0');
    expect(markdown).toMatch(/^\| measure \| baseline 0\.1\.0 \| candidate 0\.2\.0 \| difference \| verdict \| min detectable \| installs \|$/m);
    expect(markdown.match(/^\| [a-z_]+ \|/gm)!.length).toBe(MEASURE_IDS.length + 1);
    expect(markdown).toMatch(/^\| hook_ms_per_call \|.*\| \*\*better\*\* \|/m);
  }, 60_000);

  it.each([
    ['an unknown version', ['--baseline', '0.1.0', '--candidate', 'nightly'], 'unknown version "nightly" for --candidate: not a version number'],
    ['a version with no events', ['--baseline', '0.1.0', '--candidate', '0.9.0'], 'no events from version 0.9.0 in the collector store at'],
    ['the same version twice', ['--baseline', '0.2.0', '--candidate', '0.2.0'], '--baseline and --candidate are both 0.2.0'],
  ])(
    'refuses %s in one clear line, exit 2',
    async (_, args, message) => {
      const r = await run('dashboards', 'review', '--db', db, ...args);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    },
    60_000,
  );

  it('names the versions it does hold when one has no events', async () => {
    const r = await run('dashboards', 'review', '--db', db, '--baseline', '0.9.0', '--candidate', '0.1.0');
    expect(r.stderr).toContain('versions with events: 13.6.0, 13.5.2, 0.3.0, 0.2.0, 0.1.0');
  }, 60_000);

  it.each([
    [['--baseline', '0.1.0'], '--baseline and --candidate are required'],
    [['--baseline', '0.1.0', '--candidate', '0.2.0', '--db', 'x.db', '--posthog'], '--db and --posthog are two sources'],
  ])('treats %j as a usage error', async (args, message) => {
    const r = await run('dashboards', 'review', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('usage: memtrace dashboards review');
  });

  it('says where to get a store when there is none', async () => {
    const r = await run('dashboards', 'review', '--db', path.join(temp.dir, 'none.db'), '--baseline', '0.1.0', '--candidate', '0.2.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no collector store');
  });

  it('asks for the PostHog variables with --posthog', async () => {
    const r = await run('dashboards', 'review', '--posthog', '--baseline', '0.1.0', '--candidate', '0.2.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID');
  });
});

describe('memtrace dashboards report --review', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let db: string;
  beforeAll(async () => {
    temp = makeTempDir();
    db = path.join(temp.dir, 'collector.db');
    expect(await main(['collector', '--simulate', '--exit', '--db', db, '--installs', '40', '--effect', 'hook_ms_per_call:+0.5@0.3.0'], captureIO().io)).toBe(
      0,
    );
  }, 120_000);
  afterAll(() => temp?.cleanup());

  it('adds the review of the two newest memtrace versions after the tiles', async () => {
    const text = captureIO();
    expect(await main(['dashboards', 'report', '--db', db, '--review'], text.io)).toBe(0);
    expect(text.stdout()).toContain('## Session abort reasons');
    expect(text.stdout()).toContain('## Release review: 0.2.0 → 0.3.0');
    const json = captureIO();
    expect(await main(['dashboards', 'report', '--db', db, '--review', '--json'], json.io)).toBe(0);
    const report = JSON.parse(json.stdout());
    expect(report.tiles.length).toBeGreaterThan(0);
    expect(report.review).toMatchObject({ baseline: '0.2.0', candidate: '0.3.0' });
    expect(report.review.measures.find((m: { id: string }) => m.id === 'hook_ms_per_call').verdict).toBe('worse');
  }, 60_000);
});

describe('memtrace collector --effect', () => {
  it.each([
    [['--effect', 'turns_dropped_rate:-0.4@0.3.0'], '--effect only shapes a simulated fleet'],
    [['--simulate', '--effect', 'turns_dropped_rate=-0.4'], '--effect takes <measure>:<relative change>@<version>'],
    [['--simulate', '--effect', 'turns_dropped_rate:-0.4@0.1.5'], 'is not in the simulated fleet'],
  ])('refuses %j with a reason and the usage, exit 2', async (args, message) => {
    const c = captureIO();
    expect(await main(['collector', '--exit', '--db', ':memory:', ...args], c.io)).toBe(2);
    expect(c.stderr()).toContain(message);
  });
});
