import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { seedShop, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memtrace search', () => {
  const temp = makeTempDir('memtrace-search-cli-');
  const dataDir = path.join(temp.dir, 'data');
  let ids: Record<string, number>;
  beforeAll(() => {
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    ids = seedShop(store);
    store.close();
  });
  afterAll(() => temp.cleanup());

  async function cli(args: string[], env: Record<string, string> = {}) {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir, ...env }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  }

  it('prints {"results":[…]} best first with --json', async () => {
    const r = await cli(['search', 'why', 'was', 'the', 'coupon', 'applied', 'after', 'VAT?', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { results } = JSON.parse(r.stdout);
    expect(results[0]).toMatchObject({
      id: ids.discount,
      kind: 'observation',
      type: 'bugfix',
      session_id: 'session-a',
      project: '/work/shop',
      created_at: new Date(T0).toISOString(),
    });
    expect(typeof results[0].score).toBe('number');
  });

  it('prints readable results, and says when nothing matches or nothing is stored', async () => {
    const r = await cli(['search', 'stripe', 'refunds']);
    expect(r.stdout).toMatch(new RegExp(`^#${ids.webhook} +discovery +2026-01-06  Refunds arrive through the Stripe webhook\\n`));
    expect(r.stdout).toContain('session session-b · /work/shop · score ');
    expect((await cli(['search', 'zebra'])).stdout).toBe('no memory matches.\n');
    const empty = await cli(['search', 'anything', '--json'], { MEMTRACE_DATA_DIR: path.join(temp.dir, 'none') });
    expect(empty).toMatchObject({ code: 0, stdout: '{"results":[]}\n' });
    expect(fs.existsSync(path.join(temp.dir, 'none'))).toBe(false);
  });

  it.each([['"'], ['('], ['*'], ['AND'], ['NEAR('], ['"unbalanced'], ['a', 'OR', 'NOT', 'b'], ['col:', 'x'], ['stripe*']])(
    'takes %j as a query, never an error',
    async (...words) => {
      const r = await cli(['search', ...words, '--json']);
      if (words.join(' ').match(/[\p{L}\p{N}]/u)) {
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toHaveProperty('results');
      } else {
        expect(r.code).toBe(2);
        expect(r.stderr.split('\n')[0]).toBe('memtrace search: the query has no words to search for (letters or digits)');
      }
    },
  );

  it('exits 2 with one line for an empty query, a bad flag or a bad value', async () => {
    const cases: Array<[string[], string]> = [
      [['search'], 'memtrace search: give a query to search for'],
      [['search', '   '], 'memtrace search: give a query to search for'],
      [
        ['search', 'x', '--type', 'poem'],
        "memtrace search: --type must be one of bugfix, feature, refactor, change, discovery, decision, security, other, summary, got 'poem'",
      ],
      [['search', 'x', '--limit', '0'], 'memtrace search: --limit must be between 1 and 1000, got 0'],
      [['search', 'x', '--since', 'last week'], "memtrace search: --since takes an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z, got 'last week'"],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(line);
      expect(r.stderr).toContain('usage: memtrace search <query…>');
    }
  });

  it('exits 2 for an unknown flag', async () => {
    const r = await cli(['search', 'x', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memtrace search: Unknown option '--bogus'.*\n\nusage: memtrace search/);
  });

  it("'--' ends the options: what follows is searched", async () => {
    const r = await cli(['search', '--json', '--', '--limit', 'webhook']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results[0].id).toBe(ids.webhook);
  });

  it('filters with --project, --type, --since and --limit', async () => {
    const ids_ = async (...args: string[]) =>
      JSON.parse((await cli(['search', ...args, '--json'])).stdout).results.map((h: { id: number; kind: string }) => `${h.kind[0]}${h.id}`);
    expect(await ids_('feed', 'checkout', '--project', '/work/blog/')).toEqual([`o${ids.blog}`]);
    expect(await ids_('checkout', 'discount', '--type', 'summary')).toEqual([`s${ids.summary}`]);
    expect(await ids_('payment', 'refunds', 'retries', '--since', '2026-01-06T09:01:00Z')).toEqual([`o${ids.retry}`]);
    expect(await ids_('checkout', 'discount', 'payment', 'refunds', '--limit', '2')).toHaveLength(2);
  });
});

describe('--help on every memory command', () => {
  it.each([
    ['search', 'usage: memtrace search <query…> [--project P] [--type T] [--since ISO] [--limit N] [--json]'],
    ['mcp', 'usage: memtrace mcp'],
    ['viewer', 'usage: memtrace viewer [--port N] [--open]'],
    ['export', 'usage: memtrace export [--format jsonl|markdown] [--project P] [--session S] [--out PATH]'],
    ['import', 'usage: memtrace import <file.jsonl> [--json]'],
    ['forget', 'usage: memtrace forget <observation-id…> [--session S] [--project P] [--before ISO] [--match QUERY] [--dry-run] [--yes]'],
  ])('memtrace %s --help', async (name, usage) => {
    const c = captureIO();
    expect(await main([name, '--help'], c.io)).toBe(0);
    expect(c.stdout().split('\n')[0]).toBe(usage);
    const listed = captureIO();
    await main(['--help'], listed.io);
    expect(listed.stdout()).toMatch(new RegExp(`\\n  ${name} +\\S`));
  });

  it.each([
    ['mcp', '--port'],
    ['viewer', '--bogus'],
    ['viewer', '--port', 'http'],
  ])('memtrace %s refuses a wrong flag with exit 2', async (...args) => {
    const c = captureIO();
    expect(await main(args, c.io)).toBe(2);
  });
});
