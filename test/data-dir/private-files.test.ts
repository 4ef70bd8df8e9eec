import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePrivateDir, openPrivateFile, touchPrivateFile, writePrivateFile, writePrivateFileAtomic } from '../../src/data-dir/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const modeOf = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe('private files in the data dir', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let umask: number;
  beforeEach(() => {
    temp = makeTempDir();
    umask = process.umask();
  });
  afterEach(() => {
    process.umask(umask);
    temp.cleanup();
  });

  it.each([0o000, 0o022, 0o277])('creates dirs 0700 and files 0600 under umask %s', (mask) => {
    process.umask(mask);
    const dir = path.join(temp.dir, 'a', 'b', 'data');
    makePrivateDir(dir);
    for (const level of ['a', 'a/b', 'a/b/data']) expect(modeOf(path.join(temp.dir, level)), level).toBe('700');
    touchPrivateFile(path.join(dir, 'db'));
    writePrivateFile(path.join(dir, 'logs', 'new'), 'x', 'wx');
    writePrivateFileAtomic(path.join(dir, 'spool', 'call.json'), '{}');
    fs.closeSync(openPrivateFile(path.join(dir, 'log'), 'a'));
    for (const file of ['db', 'logs/new', 'spool/call.json', 'log']) expect(modeOf(path.join(dir, file)), file).toBe('600');
    for (const sub of ['logs', 'spool']) expect(modeOf(path.join(dir, sub)), sub).toBe('700');
  });

  it('tightens a file an older release left 0644, and leaves an existing folder as it is', () => {
    const file = path.join(temp.dir, 'memtrace.db');
    fs.writeFileSync(file, 'data', { mode: 0o644 });
    fs.chmodSync(temp.dir, 0o755);
    touchPrivateFile(file);
    expect(modeOf(file)).toBe('600');
    expect(fs.readFileSync(file, 'utf8')).toBe('data');
    expect(modeOf(temp.dir)).toBe('755');
  });

  it('replaces a file atomically and leaves no temp file behind', () => {
    const file = path.join(temp.dir, 'telemetry.json');
    writePrivateFileAtomic(file, 'one');
    writePrivateFileAtomic(file, 'two');
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(fs.readdirSync(temp.dir)).toEqual(['telemetry.json']);
  });

  it('refuses to overwrite with wx', () => {
    const file = path.join(temp.dir, 'backup.bak');
    writePrivateFile(file, '', 'wx');
    expect(() => writePrivateFile(file, 'again', 'wx')).toThrow(/EEXIST/);
  });
});
