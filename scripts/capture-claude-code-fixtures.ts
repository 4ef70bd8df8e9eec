/**
 * Regenerates test/fixtures/claude-code/ from the REAL Claude Code CLI (pinned devDependency), run
 * offline against the fake Anthropic API with the recording hook:
 *   npx tsx scripts/capture-claude-code-fixtures.ts
 * Session 1 is the basic scripted session (transcript-basic.jsonl); then the same session is
 * resumed with `/compact` and resumed again with one more prompt (transcript-compact.jsonl).
 * Only unstable values are replaced: the temp HOME and project paths, the repository path in hook
 * commands, and the session id (see SANITIZED below).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { claudeUnavailableReason, claudeVersion, runClaudeCode, type ClaudeRunResult } from '../test/support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../test/support/claude-code-scenario.js';
import { readRecordedHooks, recordingHooks, writeProjectSettings } from '../test/support/hook-settings.js';

const SANITIZED = { home: '/home/user', project: '/home/user/project', repo: '/opt/memtrace', sessionId: '11111111-2222-4333-8444-555555555555' };
const OUT = path.resolve(import.meta.dirname, '../test/fixtures/claude-code');
const REPO = path.resolve(import.meta.dirname, '..');

const unavailable = claudeUnavailableReason();
if (unavailable) {
  process.stderr.write(`cannot capture: ${unavailable}\n`);
  process.exit(1);
}
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-cc-capture-'));
const home = path.join(base, 'home');
const projectDir = path.join(base, 'project');
fs.mkdirSync(home);
fs.mkdirSync(projectDir);
const hookLog = path.join(home, 'hooks.jsonl');
writeProjectSettings(projectDir, recordingHooks({ outFile: hookLog, sessionStartContext: 'MEMTRACE-CANARY-123' }));
const notes = writeBasicProject(projectDir);
const fake = await startFakeAnthropic({
  script: [...basicScript(notes), { text: 'Picking up after the compaction: nothing is left to do.' }],
  compactSummary: 'The user asked for a scripted session: echo hi, read notes.txt, replace beta with gamma, run a failing command.',
});

try {
  const first = await run(BASIC_PROMPT);
  const sessionId: string = first.json.session_id;
  const transcript = first.transcripts.find((t) => t.endsWith(`${sessionId}.jsonl`));
  if (!transcript) throw new Error(`no transcript for ${sessionId}: ${first.transcripts.join(', ')}`);
  const clean = (text: string) => sanitize(text, sessionId);
  fs.mkdirSync(path.join(OUT, 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(OUT, 'transcript-basic.jsonl'), clean(fs.readFileSync(transcript, 'utf8')));

  await run('/compact', ['--resume', sessionId]);
  await run('Anything left?', ['--resume', sessionId]);
  fs.writeFileSync(path.join(OUT, 'transcript-compact.jsonl'), clean(fs.readFileSync(transcript, 'utf8')));

  // The first payload of each kind; later runs repeat most kinds with the same fields.
  const written = new Set<string>();
  for (const { payload } of readRecordedHooks(hookLog)) {
    const name = fixtureName(payload);
    if (written.has(name)) continue;
    written.add(name);
    fs.writeFileSync(path.join(OUT, 'hooks', `${name}.json`), `${clean(JSON.stringify(payload, null, 2))}\n`);
  }
  process.stdout.write(`captured with ${claudeVersion()}: ${[...written].join(', ')}\n`);
} finally {
  await fake.close();
  fs.rmSync(base, { recursive: true, force: true });
}

async function run(prompt: string, extraArgs: string[] = []): Promise<ClaudeRunResult> {
  const result = await runClaudeCode({ projectDir, prompt, apiUrl: fake.url, home, extraArgs, timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new Error(`claude ${prompt} exited ${result.exitCode}: ${result.stderr || result.stdout}`);
  return result;
}

/** e.g. post-tool-use-read, post-tool-use-failure-bash, session-start (startup), session-start-compact. */
function fixtureName(payload: Record<string, unknown>): string {
  const event = String(payload.hook_event_name)
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
  if (payload.tool_name) return `${event}-${String(payload.tool_name).toLowerCase()}`;
  if (event === 'session-start' && payload.source !== 'startup') return `${event}-${payload.source}`;
  return event;
}

function sanitize(text: string, sessionId: string): string {
  const mangled = (p: string) => p.replace(/[^a-zA-Z0-9]/g, '-');
  return text
    .replaceAll(mangled(projectDir), mangled(SANITIZED.project))
    .replaceAll(projectDir, SANITIZED.project)
    .replaceAll(home, SANITIZED.home)
    .replaceAll(REPO, SANITIZED.repo)
    .replaceAll(sessionId, SANITIZED.sessionId);
}
