import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupName, readSettingsFile, renderSettings, settingsDiff, SettingsFileError, writeSettingsFile } from '../../src/install/settings-file.js';
import { makeTempDir } from '../support/temp-dir.js';

const NOW = new Date('2026-03-04T05:06:07.890Z');

describe('settings.json on disk', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-settings-');
    file = path.join(temp.dir, '.claude', 'settings.json');
  });
  afterEach(() => temp.cleanup());
  const write = (text: string, mode = 0o644) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
  };
  const listing = () => fs.readdirSync(path.dirname(file)).sort();

  it('reads a missing file as {} and creates it (and its folder) with no backup', () => {
    const snapshot = readSettingsFile(file);
    expect(snapshot).toMatchObject({ bytes: null, value: {}, mode: null });
    expect(writeSettingsFile(snapshot, renderSettings(snapshot, { a: 1 }), NOW)).toEqual({ backupPath: null });
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "a": 1\n}\n');
    expect(listing()).toEqual(['settings.json']);
  });

  it('refuses malformed JSON with the file, line and column, and leaves it untouched', () => {
    write('{\n  "model": "opus",\n  "hooks": {\n}\n');
    const error = (() => {
      try {
        readSettingsFile(file);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SettingsFileError);
    expect(error).toMatchObject({ kind: 'malformed', file });
    expect((error as Error).message).toBe(
      `${file} is not valid JSON: line 5, column 1: expected ',' or '}' after a property value, found the end of the file. Nothing was changed; fix the file (or move it aside) and run the command again.`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "model": "opus",\n  "hooks": {\n}\n');
  });

  it('refuses a JSON value that is not an object', () => {
    write('[1, 2]\n');
    expect(() => readSettingsFile(file)).toThrow(`${file} holds a list, not a JSON object of settings`);
    write('null');
    expect(() => readSettingsFile(file)).toThrow('holds null');
  });

  it('backs up the previous bytes and keeps the mode, replacing the file atomically', () => {
    write('{\n    "model": "opus"\n}', 0o600);
    const snapshot = readSettingsFile(file);
    const next = renderSettings(snapshot, { model: 'opus', hooks: {} });
    expect(next).toBe('{\n    "model": "opus",\n    "hooks": {}\n}');
    const { backupPath } = writeSettingsFile(snapshot, next, NOW);
    expect(backupPath).toBe(`${file}.memtrace-backup-20260304T050607Z`);
    expect(fs.readFileSync(backupPath!, 'utf8')).toBe('{\n    "model": "opus"\n}');
    expect(fs.readFileSync(file, 'utf8')).toBe(next);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(backupPath!).mode & 0o777).toBe(0o600);
    expect(listing()).toEqual(['settings.json', 'settings.json.memtrace-backup-20260304T050607Z']);
  });

  it('never overwrites an earlier backup taken in the same second', () => {
    write('{"v": 1}');
    writeSettingsFile(readSettingsFile(file), '{"v": 2}', NOW);
    const second = writeSettingsFile(readSettingsFile(file), '{"v": 3}', NOW);
    expect(second.backupPath).toBe(`${backupName(file, NOW)}-2`);
    expect(fs.readFileSync(backupName(file, NOW), 'utf8')).toBe('{"v": 1}');
    expect(fs.readFileSync(second.backupPath!, 'utf8')).toBe('{"v": 2}');
  });

  it('writes through a symlinked settings.json to its target, keeping the link', () => {
    const real = path.join(temp.dir, 'dotfiles', 'claude-settings.json');
    fs.mkdirSync(path.dirname(real), { recursive: true });
    fs.writeFileSync(real, '{}\n');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(real, file);
    writeSettingsFile(readSettingsFile(file), '{"a": 1}\n', NOW);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('{"a": 1}\n');
    expect(fs.readdirSync(path.dirname(real))).toEqual(['claude-settings.json']);
  });

  it('refuses to write when the file changed after it was read, losing nothing', () => {
    write('{"a": 1}');
    const snapshot = readSettingsFile(file);
    write('{"a": 1, "written_by": "claude code meanwhile"}');
    expect(() => writeSettingsFile(snapshot, '{"b": 2}', NOW)).toThrow(/changed while memtrace was reading it/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a": 1, "written_by": "claude code meanwhile"}');
    expect(listing()).toEqual(['settings.json']);
  });

  it('refuses a settings path that is a directory, naming the reason', () => {
    fs.mkdirSync(file, { recursive: true });
    expect(() => readSettingsFile(file)).toThrow(`cannot read ${file}: EISDIR`);
  });

  it('renders the change as a unified diff', () => {
    write('{\n  "a": 1\n}\n');
    const snapshot = readSettingsFile(file);
    expect(settingsDiff(snapshot, '{\n  "a": 2\n}\n')).toBe(`--- ${file} (now)\n+++ ${file} (after)\n@@ -1,3 +1,3 @@\n {\n-  "a": 1\n+  "a": 2\n }\n`);
  });
});
