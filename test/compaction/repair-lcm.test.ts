import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { lcmEstimateTokens } from '../../src/compaction/repair/lcm-tokens.js';
import { captureIO } from '../support/cli-io.js';
import { promptOf } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm, type FakeStep } from '../support/fake-llm.js';
import { expectedAggregates } from '../support/lcm-schema.js';
import { seedLcmFixture as seed } from '../support/lcm-fixture.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A summarizer that names the topics it read, so lineage shows in the output. */
const topicsReply: FakeStep = {
  kind: 'dynamic',
  respond: (body) => ({ kind: 'text', text: `Repaired: ${[...new Set(promptOf(body).match(/topic-m\d+/g) ?? [])].join(' ')} (retries logged).` }),
};

describe('memtrace repair --lcm on a lossless-claw database', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  let llm: FakeLlm;
  let env: Record<string, string>;
  beforeEach(async () => {
    temp = makeTempDir();
    file = path.join(temp.dir, 'lcm.db');
    seed(file);
    llm = await startFakeLlm('anthropic', topicsReply);
    env = {
      MEMTRACE_DATA_DIR: path.join(temp.dir, 'memtrace'),
      MEMTRACE_TELEMETRY: '0',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: llm.url,
      MEMTRACE_MODEL: 'claude-haiku-4-5',
    };
  });
  afterEach(async () => {
    await llm.close();
    temp.cleanup();
  });
  const run = async (...args: string[]) => {
    const c = captureIO({ env, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };
  const read = () => {
    const db = new Database(file, { readonly: true });
    try {
      return {
        summaries: new Map((db.prepare('SELECT * FROM summaries').all() as Array<Record<string, any>>).map((r) => [r.summary_id as string, r])),
        fts: new Map(
          (db.prepare('SELECT summary_id, content FROM summaries_fts').all() as Array<{ summary_id: string; content: string }>).map((r) => [
            r.summary_id,
            r.content,
          ]),
        ),
        ftsCjk: new Map(
          (db.prepare('SELECT summary_id, content FROM summaries_fts_cjk').all() as Array<{ summary_id: string; content: string }>).map((r) => [
            r.summary_id,
            r.content,
          ]),
        ),
        matches: (
          db.prepare("SELECT summary_id FROM summaries_fts WHERE summaries_fts MATCH 'repaired' ORDER BY summary_id").all() as Array<{ summary_id: string }>
        ).map((r) => r.summary_id),
        expected: expectedAggregates(db),
        integrity: db.pragma('integrity_check', { simple: true }),
        foreignKeys: db.pragma('foreign_key_check') as unknown[],
      };
    } finally {
      db.close();
    }
  };

  it('scan lists the fallbacks at two depths, position-aware, and not the quoted marker', async () => {
    const { code, stdout } = await run('repair', 'scan', '--lcm', file, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.summaries.map((s: any) => [s.id, s.kind, s.depth, s.reasons])).toEqual([
      ['sum_bbbbbbbbbbbbbbbb', 'leaf', 0, ['truncated_tail']],
      ['sum_dddddddddddddddd', 'leaf', 0, ['fallback_prefix']],
      ['sum_xxxxxxxxxxxxxxxx', 'condensed', 1, ['truncated_tail', 'emergency_model']],
    ]);
    expect(report.summaries[0].tokens).toBeGreaterThan(0);
    const text = await run('repair', 'scan', '--lcm', file, '--conversation', '1');
    expect(text.stdout).toContain('3 fallback summaries');
    expect(text.stdout).not.toContain('sum_cccccccccccccccc');
  });

  it('rejects a marker-carrying rewrite, holds its parent back, then repairs bottom-up on the next run', async () => {
    // The first call (leaf B) answers with a marker: rejected, nothing written, X must wait.
    llm.push({ kind: 'text', text: 'user: topic-m3 the gateway retried\n[Truncated from 412 tokens]' });
    const before = read();
    const first = await run('repair', 'apply', '--lcm', file, '--json');
    expect(first.code).toBe(1);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ found: 3, repaired: 1, failed: 1, skipped: 1 });
    expect(report.entries.map((e: any) => [e.id, e.outcome.status, e.outcome.reason ?? null])).toEqual([
      ['sum_bbbbbbbbbbbbbbbb', 'failed', 'marker'],
      ['sum_dddddddddddddddd', 'repaired', null],
      ['sum_xxxxxxxxxxxxxxxx', 'skipped', 'source_unrepaired'],
    ]);
    expect(fs.existsSync(report.backup)).toBe(true);
    expect(path.dirname(report.backup)).toBe(temp.dir);
    const backup = new Database(report.backup, { readonly: true });
    expect((backup.prepare("SELECT content FROM summaries WHERE summary_id = 'sum_dddddddddddddddd'").get() as { content: string }).content).toContain(
      '[LCM fallback summary;',
    );
    backup.close();
    expect(read().summaries.get('sum_bbbbbbbbbbbbbbbb')!.content).toBe(before.summaries.get('sum_bbbbbbbbbbbbbbbb')!.content);

    const second = await run('repair', 'apply', '--lcm', file, '--json');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ found: 2, repaired: 2, failed: 0, skipped: 0 });
    const after = read();
    const b = after.summaries.get('sum_bbbbbbbbbbbbbbbb')!;
    const x = after.summaries.get('sum_xxxxxxxxxxxxxxxx')!;
    expect(b.content).toBe('Repaired: topic-m3 topic-m4 topic-m5 (retries logged).'); // from its source messages
    expect(x.content).toBe('Repaired: topic-m0 topic-m1 topic-m2 topic-m3 topic-m4 topic-m5 (retries logged).'); // from A and the repaired B
    expect(x.model).toBe('claude-haiku-4-5');
    // X was summarized from its sources as repaired, never from a marker.
    const xPrompt = promptOf(llm.requests.at(-1)!.body);
    expect(xPrompt).toContain(b.content);
    expect(xPrompt).not.toContain('[Truncated from');
    expect(after.summaries.get('sum_cccccccccccccccc')!.content).toBe(before.summaries.get('sum_cccccccccccccccc')!.content);

    for (const [id, row] of after.summaries) {
      expect(row.token_count).toBe(lcmEstimateTokens(row.content));
      expect({ id, dc: row.descendant_count, dtc: row.descendant_token_count, smtc: row.source_message_token_count }).toEqual({
        id,
        dc: after.expected.get(id)!.descendant_count,
        dtc: after.expected.get(id)!.descendant_token_count,
        smtc: after.expected.get(id)!.source_message_token_count,
      });
      expect(after.fts.get(id)).toBe(row.content);
      expect(after.ftsCjk.get(id)).toBe(row.content);
    }
    expect(after.fts.size).toBe(after.summaries.size);
    expect(after.matches).toEqual(['sum_bbbbbbbbbbbbbbbb', 'sum_dddddddddddddddd', 'sum_xxxxxxxxxxxxxxxx']);
    // Z's totals moved with its repaired descendants.
    expect(after.summaries.get('sum_zzzzzzzzzzzzzzzz')!.descendant_token_count).toBeLessThan(
      before.summaries.get('sum_zzzzzzzzzzzzzzzz')!.descendant_token_count,
    );
    expect(after.integrity).toBe('ok');
    expect(after.foreignKeys).toEqual([]);

    const rescan = await run('repair', 'scan', '--lcm', file, '--json');
    expect(JSON.parse(rescan.stdout).found).toBe(0);
  });

  it('refuses while another process holds the write lock, and changes nothing', async () => {
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const result = await run('repair', 'apply', '--lcm', file, '--wait-ms', '50');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('being written by another process');
      expect(fs.readdirSync(temp.dir).filter((f) => f.endsWith('.bak'))).toEqual([]);
      expect(llm.requests).toHaveLength(0);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it('says clearly when no provider is configured, and refuses a file that is not lossless-claw', async () => {
    env = { MEMTRACE_DATA_DIR: env.MEMTRACE_DATA_DIR!, MEMTRACE_TELEMETRY: '0' };
    const none = await run('repair', 'apply', '--lcm', file);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no provider is configured');
    expect(fs.readdirSync(temp.dir).filter((f) => f.endsWith('.bak'))).toEqual([]);

    const other = path.join(temp.dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x)');
    const wrong = await run('repair', 'scan', '--lcm', other);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is not a lossless-claw database');
  });

  it('rejects wrong flags with usage and exit 2', async () => {
    expect((await run('repair')).code).toBe(2);
    expect((await run('repair', 'apply', '--lcm', file, '--max', 'lots')).code).toBe(2);
    expect((await run('repair', 'scan', '--conversation', '1')).code).toBe(2);
    expect((await run('repair', 'scan', '--lcm', file, '--project', 'p')).code).toBe(2);
    const help = await run('repair', 'apply', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: memtrace repair apply');
  });
});
