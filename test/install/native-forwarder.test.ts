import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildNativeForwarder,
  buildNativeForwarderAsync,
  forwarderOutdated,
  nativeForwarderName,
  NATIVE_FORWARDER_SOURCE,
  runProgram,
  runProgramAsync,
} from '../../src/install/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('building the native hook forwarder', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());
  const build = (compiler: string, dataDir = path.join(temp.dir, 'data')) => buildNativeForwarder({ packageRoot: ROOT, dataDir, compiler, run: runProgram });
  const binEntries = () => fs.readdirSync(path.join(temp.dir, 'data', 'bin'));

  it('names the build the shell forwarder looks for: a drifted name would leave every hook on perl', () => {
    temp = makeTempDir();
    const expected = nativeForwarderName(fs.readFileSync(path.join(ROOT, NATIVE_FORWARDER_SOURCE)));
    const shell = fs.readFileSync(path.join(ROOT, 'bin', 'memtrace-hook'), 'utf8');
    expect(shell.match(/^native=\$dir\/bin\/(hook-[0-9a-f]+)$/m)?.[1]).toBe(expected);
  });

  it('builds it with cc into a private bin dir, runnable by its owner only, then finds it there', () => {
    temp = makeTempDir();
    const built = build('cc');
    expect(built.status).toBe('built');
    const file = (built as { file: string }).file;
    expect(fs.statSync(file).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    // bin/hook, which the hook commands name, links to it.
    expect(binEntries().sort()).toEqual(['hook', path.basename(file)]);
    expect(fs.readlinkSync(path.join(path.dirname(file), 'hook'))).toBe(path.basename(file));
    expect(build('cc')).toEqual({ status: 'present', file });
  });

  it('takes flags in CC, as make does', () => {
    temp = makeTempDir();
    expect(build('cc -Wall -Werror').status).toBe('built');
  });

  it('links it as usual where the C library has no static build', () => {
    temp = makeTempDir();
    const noStaticLibc = path.join(temp.dir, 'no-static-cc');
    fs.writeFileSync(noStaticLibc, '#!/bin/sh\nfor a; do [ "$a" = -static ] && { echo "ld: cannot find -lc" >&2; exit 1; }; done\nexec cc "$@"\n', {
      mode: 0o755,
    });
    expect(build(noStaticLibc).status).toBe('built');
  });

  it('says there is no compiler, and leaves nothing behind', () => {
    temp = makeTempDir();
    expect(build('no-such-compiler-here')).toEqual({ status: 'no-compiler', compiler: 'no-such-compiler-here' });
    expect(binEntries()).toEqual([]);
  });

  it('reports a compiler that fails with its first line, and leaves nothing behind', () => {
    temp = makeTempDir();
    const failing = path.join(temp.dir, 'failing-cc');
    fs.writeFileSync(failing, '#!/bin/sh\necho "\nfatal: no headers" >&2\nexit 1\n', { mode: 0o755 });
    expect(build(failing)).toEqual({ status: 'failed', compiler: failing, reason: 'fatal: no headers' });
    expect(binEntries()).toEqual([]);
  });

  it('refuses a build that does not keep the contract (says "sent" with no worker), and leaves nothing behind', () => {
    temp = makeTempDir();
    // A "compiler" whose program exits 0 for everything: it would swallow every event.
    const lying = path.join(temp.dir, 'lying-cc');
    fs.writeFileSync(lying, '#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\nprintf "#!/bin/sh\\nexit 0\\n" > "$2"\nchmod +x "$2"\n', { mode: 0o755 });
    const result = build(lying);
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringContaining('answered 0') });
    expect(binEntries()).toEqual([]);
  });

  it('is rebuilt by a worker after an upgrade changed its source, off the event loop, only where install built one before', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    // No build at all: left so on purpose (no compiler, or install never ran).
    expect(forwarderOutdated(ROOT, dataDir)).toBe(false);
    fs.mkdirSync(path.join(dataDir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'bin', 'hook-0123456789abcdef'), '', { mode: 0o700 });
    expect(forwarderOutdated(ROOT, dataDir)).toBe(true);
    const built = await buildNativeForwarderAsync({ packageRoot: ROOT, dataDir, compiler: 'cc', run: runProgramAsync });
    expect(built.status).toBe('built');
    expect(forwarderOutdated(ROOT, dataDir)).toBe(false);
    // The hook commands install wrote before the upgrade name bin/hook: it now runs the new build.
    expect(fs.realpathSync(path.join(dataDir, 'bin', 'hook'))).toBe(fs.realpathSync((built as { file: string }).file));
    expect(await buildNativeForwarderAsync({ packageRoot: ROOT, dataDir, compiler: 'no-such-compiler-here', run: runProgramAsync })).toEqual({
      status: 'present',
      file: (built as { file: string }).file,
    });
  });

  it('says so, built in the background too, when there is no compiler', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    expect(await buildNativeForwarderAsync({ packageRoot: ROOT, dataDir, compiler: 'no-such-compiler-here', run: runProgramAsync })).toEqual({
      status: 'no-compiler',
      compiler: 'no-such-compiler-here',
    });
  });
});
