import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../../src/cli/doctor/checks/index.js';
import { checkBudget } from '../../../src/cli/doctor/checks/budget.js';
import { checkForwarder } from '../../../src/cli/doctor/checks/forwarder.js';
import { checkHooks } from '../../../src/cli/doctor/checks/hooks.js';
import { checkObserver } from '../../../src/cli/doctor/checks/observer.js';
import { checkSharing } from '../../../src/cli/doctor/checks/sharing.js';
import { checkSpool } from '../../../src/cli/doctor/checks/spool.js';
import { checkWorkerStart } from '../../../src/cli/doctor/checks/start.js';
import { checkStore } from '../../../src/cli/doctor/checks/store.js';
import { checkVersions } from '../../../src/cli/doctor/checks/versions.js';
import { checkWorker } from '../../../src/cli/doctor/checks/worker.js';
import { doctorExitCode } from '../../../src/cli/doctor/finding.js';
import type { DoctorSnapshot } from '../../../src/cli/doctor/snapshot.js';

const NOW = Date.UTC(2026, 10, 29, 12);

/** A healthy machine: a worker of the installed version, hooks for Claude Code, a clean store. */
function healthy(): DoctorSnapshot {
  return {
    nowMs: NOW,
    dataDir: '/home/u/.memtrace',
    configErrors: [],
    installed: { version: '0.3.0', packageRoot: '/usr/lib/node_modules/memtrace' },
    worker: { pid: 42, port: 37877, version: '0.3.0' },
    health: {
      reachable: true,
      body: {
        version: '0.3.0',
        status: 'ok',
        queue_depth: 0,
        observing: true,
        degraded: [],
        observer: { line: 'observer: claude-code (haiku) — …', env_seen: [], waits: [], paused: null, budget: { counted_today: 1200 } },
      },
    },
    socket: { exists: true, accepts: true, error: null },
    store: {
      state: 'ok',
      writtenBy: '0.3.0',
      pendingSteps: 0,
      quickCheck: ['ok'],
      bytes: 4096,
      spendToday: { day: '2026-11-29', calls: 2, tokens: 1200, costUsd: 0.002 },
    },
    disk: { freeBytes: 10 * 1024 ** 3, totalBytes: 100 * 1024 ** 3 },
    maxDbBytes: 2048 * 1024 * 1024,
    observerBudgetTokens: 1_000_000,
    spool: { events: 0, unreadable: 0, oldestMs: null },
    forwarder: {
      script: { path: '/usr/lib/node_modules/memtrace/bin/memtrace-hook', exists: true },
      native: { path: '/home/u/.memtrace/bin/hook-abc', state: 'ok' },
      link: { path: '/home/u/.memtrace/bin/hook', target: '/home/u/.memtrace/bin/hook-abc' },
      others: [],
      compilerFound: true,
    },
    hooks: [
      {
        host: 'claude-code',
        file: '/home/u/.claude/settings.json',
        cli: 'claude',
        cliOnPath: true,
        state: 'read',
        error: null,
        events: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'],
        expected: 6,
        scripts: [{ path: '/usr/lib/node_modules/memtrace/bin/memtrace-hook', exists: true }],
      },
      { host: 'codex', file: '/home/u/.codex/hooks.json', cli: 'codex', cliOnPath: false, state: 'missing', error: null, events: [], expected: 5, scripts: [] },
    ],
    inProcess: [
      {
        host: 'opencode',
        file: '/home/u/.config/opencode/plugins/memtrace.js',
        cliOnPath: true,
        state: 'read',
        error: null,
        memtraceBin: { path: '/usr/lib/node_modules/memtrace/bin/memtrace.cjs', exists: true },
        version: '0.3.0',
      },
      { host: 'pi', file: '/home/u/.pi/agent/extensions/memtrace.js', cliOnPath: false, state: 'missing', error: null, memtraceBin: null, version: null },
    ],
    observer: { here: { line: 'observer: claude-code (haiku) — …' }, envHere: [] },
    telemetry: { enabled: false, decidedBy: 'MEMTRACE_TELEMETRY', reason: 'MEMTRACE_TELEMETRY=0', configError: null },
    sharing: [],
    startProblem: null,
  };
}

const statuses = (s: DoctorSnapshot) => CHECKS.flatMap((c) => c(s)).map((f) => `${f.check}:${f.status}`);

describe('memtrace doctor’s checks', () => {
  it('find nothing wrong on a healthy machine, every finding ok with no fix, exit 0', () => {
    const findings = CHECKS.flatMap((c) => c(healthy()));
    expect(findings.filter((f) => f.status !== 'ok')).toEqual([]);
    expect(findings.every((f) => f.fix === null && f.detail.length > 0)).toBe(true);
    expect(statuses(healthy())).toEqual([
      'config:ok',
      'versions:ok',
      'worker:ok',
      'socket:ok',
      'forwarder:ok',
      'hooks:claude-code:ok',
      'hooks:codex:ok',
      'hooks:opencode:ok',
      'hooks:pi:ok',
      'observer:ok',
      'budget:ok',
      'store:ok',
      'disk:ok',
      'store_size:ok',
      'spool:ok',
      'telemetry:ok',
      'sharing:ok',
    ]);
    expect(doctorExitCode(findings)).toBe(0);
  });

  it('say when the worker runs another version than the one installed, and how to move to it', () => {
    const s = healthy();
    s.worker = { pid: 42, port: 37877, version: '0.2.0' };
    expect(checkVersions(s)).toEqual([
      {
        check: 'versions',
        status: 'warn',
        detail: 'installed 0.3.0 (/usr/lib/node_modules/memtrace), running 0.2.0, store 0.3.0: the worker runs another version than the one installed here',
        fix: 'memtrace worker stop && memtrace worker start (the installed version then serves)',
      },
    ]);
  });

  it('fail a store written by a newer memtrace, naming the version to install', () => {
    const s = healthy();
    s.store = { state: 'too_new', writtenBy: '0.9.0', unknownSteps: ['2000_future'] };
    expect(checkStore(s)[0]).toMatchObject({ status: 'fail', fix: expect.stringContaining('memtrace 0.9.0 or newer') });
    expect(checkVersions(s)[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining('store 0.9.0') });
  });

  it('fail a store whose driver cannot load with the exact command that completes it', () => {
    const s = healthy();
    s.store = { state: 'no_driver', reason: 'its native build was skipped when it was installed', fix: 'cd /p && pnpm approve-builds better-sqlite3' };
    expect(checkStore(s)).toEqual([
      {
        check: 'store',
        status: 'fail',
        detail: 'the SQLite driver cannot load, so nothing can be stored or read: its native build was skipped when it was installed',
        fix: 'cd /p && pnpm approve-builds better-sqlite3',
      },
    ]);
  });

  it('fail a damaged store (quick_check) and one that does not open, with the step that keeps the old file', () => {
    const s = healthy();
    s.store = {
      state: 'ok',
      writtenBy: '0.3.0',
      pendingSteps: 0,
      quickCheck: ['*** in database main ***', 'Page 5: btreeInitPage() returns error code 11'],
      bytes: 1,
      spendToday: null,
    };
    expect(checkStore(s)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('btreeInitPage'),
      fix: expect.stringContaining('move DATA_DIR/memtrace.db'),
    });
    s.store = { state: 'unreadable', error: 'file is not a database' };
    expect(checkStore(s)[0]).toMatchObject({ status: 'fail', detail: 'memtrace.db cannot be opened: file is not a database' });
  });

  it('fail a worker that holds the data dir but does not answer, and a socket that takes no connection', () => {
    const s = healthy();
    s.health = { reachable: false, error: 'fetch failed' };
    s.socket = { exists: true, accepts: false, error: 'ECONNREFUSED' };
    expect(checkWorker(s).map((f) => `${f.check}:${f.status}`)).toEqual(['worker:fail', 'socket:fail']);
    expect(checkWorker(s)[0]!.fix).toContain('kill 42');
  });

  it('fail hooks that run a forwarder that is gone, and a hook file that is not JSON; warn for a host with its CLI and no hooks', () => {
    const s = healthy();
    s.hooks = [
      { ...s.hooks[0]!, scripts: [{ path: '/old/memtrace/bin/memtrace-hook', exists: false }] },
      {
        host: 'gemini-cli',
        file: '/home/u/.gemini/settings.json',
        cli: 'gemini',
        cliOnPath: true,
        state: 'invalid',
        error: 'is not valid JSON (line 3, column 1: x)',
        events: [],
        expected: 5,
        scripts: [],
      },
      { host: 'codex', file: '/home/u/.codex/hooks.json', cli: 'codex', cliOnPath: true, state: 'missing', error: null, events: [], expected: 5, scripts: [] },
    ];
    s.inProcess = [];
    expect(checkHooks(s)).toEqual([
      {
        check: 'hooks:claude-code',
        status: 'fail',
        detail: '/home/u/.claude/settings.json: hooks run /old/memtrace/bin/memtrace-hook, which does not exist (memtrace moved or was removed)',
        fix: 'memtrace install --host claude-code',
      },
      {
        check: 'hooks:gemini-cli',
        status: 'fail',
        detail: '/home/u/.gemini/settings.json is not valid JSON (line 3, column 1: x): gemini-cli may ignore it, hooks included',
        fix: 'fix the file by hand (or move it aside), then memtrace install --host gemini-cli',
      },
      {
        check: 'hooks:codex',
        status: 'warn',
        detail: "codex is on PATH but memtrace's hooks are not in /home/u/.codex/hooks.json: its sessions are not remembered",
        fix: 'memtrace install --host codex',
      },
    ]);
  });

  it('check OpenCode’s plugin and pi’s extension: not memtrace’s, missing while the CLI is there, unreadable, spooling through a memtrace that is gone, of another install or version', () => {
    const s = healthy();
    const plugin = s.inProcess[0]!;
    const extension = { ...s.inProcess[1]!, cliOnPath: true };
    const findings = (list: DoctorSnapshot['inProcess']) => checkHooks({ ...s, hooks: [], inProcess: list }).map((f) => [f.status, f.detail, f.fix]);
    expect(findings([{ ...plugin, state: 'foreign', memtraceBin: null, version: null }, extension])).toEqual([
      [
        'warn',
        "/home/u/.config/opencode/plugins/memtrace.js is a plugin memtrace install did not write: memtrace's is not installed",
        'move /home/u/.config/opencode/plugins/memtrace.js aside, then memtrace install --host opencode',
      ],
      [
        'warn',
        "pi is on PATH but memtrace's extension is not in /home/u/.pi/agent/extensions/memtrace.js: its sessions are not remembered",
        'memtrace install --host pi',
      ],
    ]);
    expect(findings([{ ...plugin, state: 'unreadable', error: 'cannot be read (EACCES)', memtraceBin: null, version: null }])).toEqual([
      [
        'fail',
        '/home/u/.config/opencode/plugins/memtrace.js cannot be read (EACCES): opencode may not load it',
        'fix the file (or remove it), then memtrace install --host opencode',
      ],
    ]);
    const elsewhere = (bin: string, exists: boolean, version = '0.3.0') => findings([{ ...plugin, memtraceBin: { path: bin, exists }, version }])[0]!;
    expect(elsewhere('/old/memtrace/bin/memtrace.cjs', false)).toEqual([
      'fail',
      '/home/u/.config/opencode/plugins/memtrace.js: the plugin spools through /old/memtrace/bin/memtrace.cjs, which does not exist (memtrace moved or was removed): with no worker, events are lost',
      'memtrace install --host opencode',
    ]);
    expect(elsewhere('/opt/memtrace/bin/memtrace.cjs', true)[0]).toBe('warn');
    expect(elsewhere('/opt/memtrace/bin/memtrace.cjs', true)[1]).toContain('runs another install of memtrace (/opt/memtrace/bin/memtrace.cjs)');
    expect(elsewhere('/usr/lib/node_modules/memtrace/bin/memtrace.cjs', true, '0.2.9')).toEqual([
      'warn',
      "/home/u/.config/opencode/plugins/memtrace.js: the plugin is memtrace 0.2.9's; this is 0.3.0",
      'memtrace install --host opencode (it rewrites the file)',
    ]);
  });

  it('fail a deleted forwarder script, and warn for a native build missing or made from another version', () => {
    const s = healthy();
    s.forwarder.script.exists = false;
    expect(checkForwarder(s)[0]).toMatchObject({ status: 'fail', fix: 'reinstall memtrace (npm install -g memtrace), then memtrace install' });
    s.forwarder = {
      ...s.forwarder,
      script: { ...s.forwarder.script, exists: true },
      native: { path: '/d/bin/hook-new', state: 'missing' },
      others: ['/d/bin/hook-old'],
    };
    expect(checkForwarder(s)[0]).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('/d/bin/hook-old was built from another version'),
      fix: 'memtrace install (builds it)',
    });
    s.forwarder.compilerFound = false;
    expect(checkForwarder(s)[0]!.fix).toContain('install a C compiler');
  });

  it("warn when bin/hook, which the hook commands run first, does not link to this version's build", () => {
    const s = healthy();
    s.forwarder.link.target = '/home/u/.memtrace/bin/hook-old';
    expect(checkForwarder(s)[0]).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('/home/u/.memtrace/bin/hook links to /home/u/.memtrace/bin/hook-old, not to /home/u/.memtrace/bin/hook-abc'),
      fix: 'memtrace install (links it)',
    });
    s.forwarder.link.target = null;
    expect(checkForwarder(s)[0]!.detail).toContain('/home/u/.memtrace/bin/hook is missing');
  });

  it('say which observer variable the running worker never saw, by name only', () => {
    const s = healthy();
    s.observer.envHere = ['ANTHROPIC_API_KEY'];
    expect(checkObserver(s)).toContainEqual({
      check: 'observer_env',
      status: 'warn',
      detail:
        "ANTHROPIC_API_KEY is set here but not in the running worker's environment (it started without it); apply: memtrace worker stop && memtrace worker start (from this shell)",
      fix: 'memtrace worker stop && memtrace worker start (from this shell)',
    });
  });

  it('warn while the day’s budget holds the observer, naming the raise that takes effect at once', () => {
    const s = healthy();
    (s.health as { body: Record<string, unknown> }).body.observer = { paused: { resume_at: '2026-11-30T00:00:00.000Z' }, budget: { counted_today: 999_000 } };
    expect(checkBudget(s)[0]).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('999,000 of 1,000,000 tokens'),
      fix: expect.stringContaining('raise MEMTRACE_OBSERVER_BUDGET_TOKENS and restart the worker (what waited is observed at once)'),
    });
  });

  it('warn about a spool no worker takes', () => {
    const s = healthy();
    s.worker = null;
    s.health = null;
    s.spool = { events: 3, unreadable: 1, oldestMs: NOW - 10 * 60_000 };
    expect(checkSpool(s).map((f) => `${f.check}:${f.status}:${f.detail}`)).toEqual([
      'spool:warn:3 hook event(s) wait in the spool for a worker, the oldest 10 min old',
      'spool_unreadable:warn:1 spooled event(s) could not be read and were set aside',
    ]);
  });

  it('say how each shared project stands, and fail one whose database refuses, naming the step', () => {
    const s = healthy();
    expect(checkSharing(s)).toEqual([expect.objectContaining({ check: 'sharing', status: 'ok' })]);
    s.sharing = [
      { status: 'ok', line: 'shop (postgresql://alice@db/team): synced 3 s ago; pushed 2, pulled 5, nothing waiting' },
      { status: 'fail', line: 'api (postgresql://alice@db/team): cannot sync since 2 h ago (auth: password authentication failed)' },
    ];
    const found = checkSharing(s);
    expect(found.map((f) => f.status)).toEqual(['ok', 'fail']);
    expect(found[1]!.fix).toContain('memtrace share sync');
    expect(doctorExitCode(found)).toBe(1);
    s.sharing = { error: 'database disk image is malformed' };
    expect(checkSharing(s)[0]).toMatchObject({ status: 'warn', detail: expect.stringContaining('malformed') });
  });

  it('fail a worker that cannot start with the reason its last start left, only while none runs', () => {
    const s = healthy();
    s.startProblem =
      "memtrace's worker (0.3.0) cannot start: the store is damaged. To fix: memtrace repair. Hook events are kept meanwhile and stored once it runs.";
    expect(checkWorkerStart(s)).toEqual([]);
    s.worker = null;
    s.health = null;
    expect(checkWorkerStart(s)[0]).toMatchObject({ check: 'worker_start', status: 'fail', detail: expect.stringContaining('the store is damaged') });
    s.startProblem = null;
    expect(checkWorkerStart(s)[0]).toMatchObject({ status: 'ok' });
  });
});
