import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readShareUrls, setShareUrl, shareUrlsStamp } from '../../src/share/share-urls.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('share.json as the running worker watches it', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('stamps a data dir with nothing shared as none, and changes the stamp with every rewrite', () => {
    temp = makeTempDir();
    expect(shareUrlsStamp(temp.dir)).toBe('none');
    expect(readShareUrls(temp.dir).size).toBe(0);

    setShareUrl(temp.dir, 'shop', 'postgresql://alice@db.example.com/team');
    const added = shareUrlsStamp(temp.dir);
    expect(added).not.toBe('none');
    setShareUrl(temp.dir, 'blog', 'postgresql://alice@db.example.com/team');
    expect(shareUrlsStamp(temp.dir)).not.toBe(added);
    expect([...readShareUrls(temp.dir).keys()].sort()).toEqual(['blog', 'shop']);

    fs.rmSync(path.join(temp.dir, 'share.json'));
    expect(shareUrlsStamp(temp.dir)).toBe('none');
  });
});
