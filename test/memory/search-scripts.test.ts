import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySearch } from '../../src/memory/index.js';
import { importJsonl } from '../../src/memory/import.js';
import { MIGRATIONS, openDatabase, openStore, type Store } from '../../src/store/index.js';
import { addObservation, addSummary, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

async function* lines(...items: unknown[]) {
  for (const item of items) yield JSON.stringify(item);
}

describe('search in every script', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir('memtrace-scripts-');
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });
  const ids = (text: string, filters = {}) =>
    createMemorySearch(store.db)
      .search(text, filters)
      .map((h) => h.id);

  it('finds words inside Japanese, Chinese and French observations imported from jsonl (the report of issue 29)', async () => {
    const base = { session_id: 's1', project: '/work/app', created_at: '2026-01-05T09:00:00.000Z' };
    const report = await importJsonl(
      store,
      lines(
        {
          ...base,
          id: 1,
          type: 'bugfix',
          title: 'ワイルドカード検索でJWT認証ミドルウェアが遅くなる',
          narrative: '認証ミドルウェアがワイルドカードのパスごとに署名を検証していた。',
        },
        { ...base, id: 2, type: 'feature', title: '为网关添加认证中间件', narrative: '认证中间件在转发请求之前校验令牌。' },
        {
          ...base,
          id: 3,
          type: 'discovery',
          title: 'Le cache des requêtes est vidé à chaque déploiement',
          narrative: 'Les clés dépendent du numéro de version.',
        },
      ),
      { nowMs: T0 },
    );
    expect(report).toMatchObject({ imported: 3, invalid: 0 });
    expect(ids('ワイルドカード')).toEqual([1]);
    expect(ids('ミドルウェア')).toEqual([1]);
    expect(ids('認証')).toEqual([1]);
    expect(ids('认证')).toEqual([2]);
    expect(ids('中间件')).toEqual([2]);
    expect(ids('requêtes')).toEqual([3]);
    expect(ids('requetes')).toEqual([3]);
    expect(ids('déploiement')).toEqual([3]);
  });

  it('finds either part of mixed-script text, and the whole', () => {
    const jwt = addObservation(store, { title: 'JWT認証ミドルウェアを追加', narrative: 'トークンの有効期限を確認する。' });
    const other = addObservation(store, { title: 'Rate limit for the login endpoint', narrative: 'ログインAPIに制限を入れた。' });
    expect(ids('JWT')).toEqual([jwt]);
    expect(ids('認証')).toEqual([jwt]);
    expect(ids('ミドルウェア')).toEqual([jwt]);
    expect(ids('JWT認証ミドルウェア')[0]).toBe(jwt);
    expect(ids('ログイン')).toEqual([other]);
    expect(ids('login')).toEqual([other]);
  });

  it('finds a word wherever it sits in a run, one character as a prefix, and ranks a sentence by the words it shares', () => {
    const index = addObservation(store, { title: '订单查询缺少索引导致慢查询', narrative: '增加了联合索引，查询从三秒降到十毫秒。' });
    const pool = addObservation(store, { title: '数据库连接池耗尽导致接口超时', narrative: '事务里调用了外部服务，连接长时间不释放。' });
    expect(ids('联合索引')).toEqual([index]);
    expect(ids('连接池')).toEqual([pool]);
    expect(ids('池')).toEqual([pool]);
    expect(ids('为什么按用户查订单很慢，是不是缺少索引')[0]).toBe(index);
    expect(ids('高峰期接口超时，连接一直不释放')[0]).toBe(pool);
  });

  it('finds Korean words with their particles attached', () => {
    const auth = addObservation(store, { title: '인증 미들웨어가 만료된 토큰을 허용함', narrative: '만료 시간을 확인하지 않았다.' });
    expect(ids('미들웨어')).toEqual([auth]);
    expect(ids('토큰')).toEqual([auth]);
    expect(ids('만료된 토큰으로 API 호출')[0]).toBe(auth);
  });

  it('finds Thai, Lao and Khmer words, whose vowel signs no longer cut a word apart', () => {
    const thai = addObservation(store, { title: 'มิดเดิลแวร์ยืนยันตัวตนไม่ตรวจสอบวันหมดอายุของโทเคน', narrative: 'เพิ่มการตรวจสอบเวลาหมดอายุ' });
    const lao = addObservation(store, { title: 'ການຢືນຢັນຕົວຕົນລົ້ມເຫຼວ' });
    const khmer = addObservation(store, { title: 'ការផ្ទៀងផ្ទាត់អត្តសញ្ញាណបរាជ័យ' });
    expect(ids('หมดอายุ')).toEqual([thai]);
    expect(ids('โทเคน')).toEqual([thai]);
    expect(ids('ຢືນຢັນ')).toEqual([lao]);
    expect(ids('ផ្ទៀងផ្ទាត់')).toEqual([khmer]);
  });

  it('folds full-width letters and half-width kana', () => {
    const id = addObservation(store, { title: 'ＪＷＴの検証をﾐﾄﾞﾙｳｪｱに移した' });
    expect(ids('JWT')).toEqual([id]);
    expect(ids('ミドルウェア')).toEqual([id]);
  });

  it('cuts the snippet around a word found inside a run, and searches summaries too', () => {
    addObservation(store, {
      title: '請求書の日付が一日ずれる',
      narrative: `${'月末の処理について。'.repeat(30)}日本時間の深夜に作成された請求書が前日の日付になっていた。`,
    });
    const summary = addSummary(store, { request: '报表按天统计时时区不对', learned: '改为按上海时区计算。' });
    const [hit] = createMemorySearch(store.db).search('深夜');
    expect(hit!.snippet).toContain('深夜');
    expect(
      createMemorySearch(store.db)
        .search('时区')
        .map((h) => [h.kind, h.id]),
    ).toEqual([['summary', summary]]);
  });

  it('forgets by --match words inside a run (every word must be there)', () => {
    const a = addObservation(store, { title: '在庫キャッシュの無効化' });
    addObservation(store, { title: 'キャッシュの容量' });
    expect(
      createMemorySearch(store.db)
        .search('在庫 キャッシュ', { everyWord: true })
        .map((h) => h.id),
    ).toEqual([a]);
  });
});

describe('the index made again for every script on upgrade (step 0900)', () => {
  it('indexes the rows an older memtrace wrote so their words are found', () => {
    const temp = makeTempDir('memtrace-scripts-upgrade-');
    const file = path.join(temp.dir, 'memtrace.db');
    try {
      const before = MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex((m) => m.id === '0900_search_every_script'),
      );
      const old = openDatabase(file, { migrations: before });
      // What an older memtrace wrote: the row and its index entry as it made them.
      const insert = (title: string, narrative: string) => {
        const rowid = Number(
          old
            .prepare(`INSERT INTO observations (session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified, source_message_ids, provider, prompt_version, created_at)
              VALUES ('s', '/p', 'bugfix', ?, '', ?, '[]', '[]', '[]', '[]', '[]', 'replay', 'v0', ?)`)
            .run(title, narrative, T0).lastInsertRowid,
        );
        old.prepare('INSERT INTO memory_fts (rowid, title, narrative) VALUES (?, ?, ?)').run(rowid, title, narrative);
        return rowid;
      };
      const id = insert('ワイルドカード検索が全件スキャンになっていた', 'แก้ไขการยืนยันตัวตน');
      insert('Checkout total ignored the discount code', '');
      // The old index kept the whole run as one token.
      expect(old.prepare(`SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH '"ワイルドカード"'`).get()).toEqual({ n: 0 });
      old.close();
      const upgraded = openStore(file);
      const search = createMemorySearch(upgraded.db);
      expect(search.search('ワイルドカード').map((h) => h.id)).toEqual([id]);
      expect(search.search('ยืนยัน').map((h) => h.id)).toEqual([id]);
      expect(search.search('discount')).toHaveLength(1);
      // Deleting a row still removes its index entry (the triggers of step 0500 name the new table).
      upgraded.db.prepare('DELETE FROM observations WHERE id = ?').run(id);
      expect(search.search('ワイルドカード')).toEqual([]);
      upgraded.close();
      expect(openDatabase(file).prepare("SELECT count(*) AS n FROM schema_migrations WHERE id = '0900_search_every_script'").get()).toEqual({ n: 1 });
    } finally {
      temp.cleanup();
    }
  });
});
