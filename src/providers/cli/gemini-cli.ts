import fs from 'node:fs';
import path from 'node:path';
import type { HostCliSpec } from './host-cli-provider.js';
import { readGeminiOutput } from './gemini-output.js';

/**
 * `gemini -p` as the observer (Gemini CLI 0.61.0). It has no flags for hooks, MCP or tools, so the
 * call runs in memtrace's scratch directory with workspace settings of memtrace's own
 * (`<scratch>/.gemini/settings.json`, which override the user's): the hook system off
 * (`hooksConfig.enabled`), only an MCP server name that does not exist allowed (`mcp.allowed`),
 * only a tool name that does not exist allowed (`tools.core`), skills off, no retries of its own
 * (`general.maxAttempts`), and the reply capped (`modelConfigs` overrides `maxOutputTokens`).
 * Workspace settings load only in a trusted folder: GEMINI_CLI_TRUST_WORKSPACE=true trusts the
 * scratch directory for this process only (no trust is written anywhere). GEMINI_SYSTEM_MD
 * replaces Gemini's system prompt with the observer's. Gemini always records the chat; the call
 * gets its own `--session-id` and its chat file is removed afterwards (`afterCall`).
 */
export const GEMINI_CLI: HostCliSpec = {
  name: 'gemini-cli',
  binary: 'gemini',
  defaultModel: 'gemini-2.5-flash-lite',
  // Gemini adds a session-context block (date, OS, the scratch dir's listing) and the user's
  // global GEMINI.md, which no setting keeps out (docs/observer.md#budget).
  limits: (maxOutputTokens) => ({ overheadTokens: 8_192, outputTokens: maxOutputTokens, outputEnforced: true }),
  files: (call) => [
    { name: path.join('.gemini', 'settings.json'), content: `${JSON.stringify(workspaceSettings(call.model, call.maxOutputTokens), null, 2)}\n` },
    { name: 'observer-system.md', content: call.system },
  ],
  args: (call) => ['-p', '', '--output-format', 'json', '--skip-trust', '--session-id', call.callId, ...(call.model ? ['-m', call.model] : [])],
  env: (call) => ({
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_SYSTEM_MD: path.join(call.scratchDir, 'observer-system.md'),
    TMPDIR: call.tmpDir,
  }),
  read: (outcome, nowMs) => {
    const reply = readGeminiOutput(outcome.stdout, outcome.stderr, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: null, model: reply.model };
  },
  afterCall: (call, env) => removeGeminiChat(call.scratchDir, call.callId, env.HOME),
};

function workspaceSettings(model: string | null, maxOutputTokens: number) {
  return {
    hooksConfig: { enabled: false },
    mcp: { allowed: ['memtrace-observer-has-no-mcp-server'] },
    tools: { core: ['memtrace_observer_has_no_tools'] },
    skills: { enabled: false },
    general: { maxAttempts: 1 },
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    ...(model
      ? {
          modelConfigs: {
            overrides: [
              {
                match: { model },
                modelConfig: { generateContentConfig: { maxOutputTokens, thinkingConfig: { thinkingBudget: Math.floor(maxOutputTokens / 4) } } },
              },
            ],
          },
        }
      : {}),
  };
}

/**
 * Gemini keeps every chat under ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl; the
 * project folder of the scratch dir is the one whose `.project_root` names it.
 */
function removeGeminiChat(scratchDir: string, sessionId: string, home: string | undefined): void {
  if (!home) return;
  const tmp = path.join(home, '.gemini', 'tmp');
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  for (const project of fs.readdirSync(tmp, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    const dir = path.join(tmp, project.name);
    let root: string;
    try {
      root = fs.readFileSync(path.join(dir, '.project_root'), 'utf8').trim();
    } catch {
      continue;
    }
    if (root !== scratchDir) continue;
    const chats = path.join(dir, 'chats');
    for (const name of fs.existsSync(chats) ? fs.readdirSync(chats) : []) if (name.endsWith(suffix)) fs.rmSync(path.join(chats, name), { force: true });
  }
}
