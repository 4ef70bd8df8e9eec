import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readContextFile, writeContextFile } from '../../src/data-dir/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the context kept for a directory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  const cwd = '/home/me/project';
  beforeEach(() => {
    temp = makeTempDir();
    file = path.join(temp.dir, 'context', cwd, 'session-start.json');
  });
  afterEach(() => temp.cleanup());

  const identity = () => {
    const stat = fs.statSync(file);
    return { ino: stat.ino, mtimeMs: stat.mtimeMs };
  };

  it('is left as it is when it already holds the same context: no rewrite at every session start', () => {
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    const first = identity();
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    expect(identity()).toEqual(first);
    expect(readContextFile(temp.dir, cwd)).toBe('{"context":"a"}\n');
  });

  it('is replaced when the context changed, even at the same length', () => {
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    const first = identity();
    writeContextFile(temp.dir, cwd, '{"context":"b"}\n');
    expect(identity().ino).not.toBe(first.ino);
    expect(readContextFile(temp.dir, cwd)).toBe('{"context":"b"}\n');
  });

  it('is written again, private, when the same bytes sit in a file others can read', () => {
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    fs.chmodSync(file, 0o644);
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is removed when there is no context, and each host variant is a file of its own', () => {
    writeContextFile(temp.dir, cwd, '{"context":"a"}\n');
    writeContextFile(temp.dir, cwd, '{"copilot":"a"}\n', 'copilot');
    writeContextFile(temp.dir, cwd, null);
    expect(readContextFile(temp.dir, cwd)).toBeNull();
    expect(readContextFile(temp.dir, cwd, 'copilot')).toBe('{"copilot":"a"}\n');
  });
});
