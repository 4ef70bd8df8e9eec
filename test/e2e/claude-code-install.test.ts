/**
 * SLOW (~3 s): the REAL Claude Code (pinned devDependency, offline against the fake Anthropic API)
 * loads memtrace's plugin (`--plugin-dir`) and the hooks `memtrace install` writes into a
 * project's settings, in one session, and runs every hook through the real forwarder with the
 * intended argv: the native build in the data dir that the hook command runs first, handing back
 * to bin/memtrace-hook, then memtrace-hook.pl with this machine's perl. No worker runs, so the
 * forwarder hands each event to Node, and the package's bin/memtrace.cjs is
 * swapped for a stand-in that records its argv: this checks the wiring (plugin manifest,
 * hooks.json, quoting, matchers, async flags, the forwarder's fallback), not the hook's own work.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_COMMAND_NAMES, memtraceHooks, type ClaudeHookEvent } from '../../src/install/hook-definitions.js';
import { settingsForwarder } from '../../src/install/package-root.js';
import { installHooks } from '../../src/install/settings-merge.js';
import { readSettingsFile, renderSettings, writeSettingsFile } from '../../src/install/settings-file.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { claudeUnavailableReason, runClaudeCode, type ClaudeRunResult } from '../support/claude-code.js';
import { basicScript, BASIC_FINAL_TEXT, BASIC_PROMPT, writeBasicProject } from '../support/claude-code-scenario.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const unavailable = claudeUnavailableReason();
if (unavailable) console.warn(`skipping the Claude Code install e2e test: ${unavailable}`);

/**
 * Stands in for bin/memtrace.cjs: appends `{argv, event}` to ../calls.jsonl. On Stop it waits
 * (bounded) for the four tool hooks of its own package: `-p` kills async hooks still running at exit.
 */
const STAND_IN = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const calls = path.join(__dirname, '..', 'calls.jsonl');
let event = null;
try { event = JSON.parse(fs.readFileSync(0, 'utf8')).hook_event_name; } catch {}
fs.appendFileSync(calls, JSON.stringify({ argv: process.argv.slice(2), event }) + '\\n');
if (event === 'Stop') {
  const toolLines = () => fs.readFileSync(calls, 'utf8').split('\\n').filter((l) => l.includes('"event":"PostToolUse')).length;
  const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  for (let i = 0; i < 100 && toolLines() < 4; i++) sleep(100);
}
`;

function stagePackage(dir: string, withPlugin: boolean): void {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), fs.readFileSync(path.join(ROOT, 'package.json')));
  fs.writeFileSync(path.join(dir, 'bin', 'memtrace.cjs'), STAND_IN);
  for (const forwarder of ['memtrace-hook', 'memtrace-hook.pl']) fs.copyFileSync(path.join(ROOT, 'bin', forwarder), path.join(dir, 'bin', forwarder));
  if (withPlugin) for (const entry of ['.claude-plugin', 'hooks']) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
}

const readCalls = (dir: string): Array<{ argv: string[]; event: string }> =>
  fs.existsSync(path.join(dir, 'calls.jsonl'))
    ? fs
        .readFileSync(path.join(dir, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];

describe.skipIf(unavailable !== null)('memtrace plugin and settings hooks in the real Claude Code', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let fake: FakeAnthropic;
  let pluginPkg: string;
  let settingsPkg: string;
  let result: ClaudeRunResult;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-cc-install-');
    pluginPkg = path.join(temp.dir, 'plugin pkg');
    settingsPkg = path.join(temp.dir, "settings pkg 'quoted' $HOME");
    stagePackage(pluginPkg, true);
    stagePackage(settingsPkg, false);
    const projectDir = path.join(temp.dir, 'project');
    fs.mkdirSync(projectDir);
    // A data dir with the native build install makes, and no worker.
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    buildNativeForwarderInto(dataDir);
    // What `memtrace install --project` does, with the stand-in package as memtrace's root.
    const file = path.join(projectDir, '.claude', 'settings.json');
    const snapshot = readSettingsFile(file);
    const merged = installHooks(snapshot.value, memtraceHooks(settingsForwarder(process.execPath, settingsPkg, dataDir), 'settings'));
    if (!merged.ok) throw new Error(merged.error);
    writeSettingsFile(snapshot, renderSettings(snapshot, merged.settings), new Date());
    const notes = writeBasicProject(projectDir);
    fake = await startFakeAnthropic({ script: basicScript(notes) });
    result = await runClaudeCode({
      projectDir,
      prompt: BASIC_PROMPT,
      apiUrl: fake.url,
      home: path.join(temp.dir, 'home'),
      extraArgs: ['--plugin-dir', pluginPkg],
      env: { MEMTRACE_DATA_DIR: dataDir },
      timeoutMs: 60_000,
    });
  });
  afterAll(async () => {
    await fake?.close();
    temp?.cleanup();
  });

  it('completes the session', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json?.result).toBe(BASIC_FINAL_TEXT);
  });

  it.each([
    ['plugin', () => pluginPkg],
    ['settings', () => settingsPkg],
  ] as const)(
    'runs every %s hook through the forwarder, which falls back to `hook --host claude-code <name> --via <mode>` without a worker',
    async (mode, dir) => {
      // With no worker the forwarder hands each event to the Node hook detached: the last may still be on its way.
      await waitFor(() => readCalls(dir()).length >= 8, 20_000).catch(() => undefined);
      const calls = readCalls(dir());
      const seen = (event: ClaudeHookEvent) => calls.filter((c) => c.event === event);
      for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'] as const) expect(seen(event), event).toHaveLength(1);
      expect(seen('PostToolUse')).toHaveLength(3);
      expect(seen('PostToolUseFailure')).toHaveLength(1);
      for (const call of calls) {
        const name = HOOK_COMMAND_NAMES[call.event as ClaudeHookEvent];
        // When the hook fired (the spool's order); a cold SessionStart has printed the kept context itself.
        const tail = ['--fired-at', expect.stringMatching(/^\d{13}$/), ...(call.event === 'SessionStart' ? ['--context-printed'] : [])];
        expect(call.argv).toEqual(['hook', '--host', 'claude-code', name, '--via', mode, ...tail]);
      }
    },
  );
});
