import fs from 'node:fs';
import path from 'node:path';
import type { HostCliSpec } from './host-cli-provider.js';
import { readCopilotOutput, readCopilotUsage } from './copilot-output.js';

/**
 * `copilot` as the observer (Copilot CLI 1.0.102, flags from `copilot --help`). The prompt goes on
 * stdin (piped stdin is a one-shot prompt), after the observer's instructions: Copilot's own system
 * prompt cannot be replaced. `--available-tools=none` (an allow-list naming no tool) sends no
 * tools, `--disable-builtin-mcps` starts none of its own servers, `--no-custom-instructions` reads no
 * AGENTS.md. What no flag turns off — the user's hooks, their MCP servers, and the session every
 * call is saved as (its folder and a row in the searchable session-store.db) — lives in
 * COPILOT_HOME, so the call gets a COPILOT_HOME of its own in its temporary directory, removed
 * after it. A login kept in the environment (BYOK `COPILOT_PROVIDER_*`, or a token in
 * COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN) works there; one `copilot login` stored beside
 * the user's own COPILOT_HOME may not, which is why select.ts picks this observer by default only
 * when the login is in the environment (docs/observer.md). The reply is not capped for GitHub's
 * models (COPILOT_PROVIDER_MAX_OUTPUT_TOKENS caps a BYOK one); token counts come from
 * `--usage-output-file`.
 */
const USAGE_FILE = 'copilot-usage.json';

export const COPILOT_CLI: HostCliSpec = {
  name: 'copilot',
  binary: 'copilot',
  defaultModel: null,
  // Copilot's own system prompt (about 8 KB of request with no tools) comes before the observer's.
  limits: (maxOutputTokens) => ({ overheadTokens: 4_096, outputTokens: maxOutputTokens, outputEnforced: false }),
  args: (call) => [
    '--output-format',
    'json',
    '--available-tools=none',
    '--disable-builtin-mcps',
    '--no-custom-instructions',
    '--no-ask-user',
    '--no-auto-update',
    // Required in a non-interactive run; with no tool offered it allows nothing.
    '--allow-all-tools',
    '--usage-output-file',
    path.join(call.tmpDir, USAGE_FILE),
    ...(call.model ? ['--model', call.model] : []),
  ],
  stdin: (call) => `${call.system}\n\n${call.prompt}`,
  env: (call) => ({
    COPILOT_HOME: path.join(call.tmpDir, 'copilot-home'),
    TMPDIR: call.tmpDir,
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: String(call.maxOutputTokens),
    NO_COLOR: '1',
  }),
  read: (outcome, nowMs, call) => {
    const reply = readCopilotOutput(outcome.stdout, outcome.stderr, outcome.exitCode, nowMs);
    const { usage, model } = readCopilotUsage(readOptional(path.join(call.tmpDir, USAGE_FILE)));
    return { text: reply.text, usage, reportedCostUsd: null, model };
  },
};

function readOptional(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
