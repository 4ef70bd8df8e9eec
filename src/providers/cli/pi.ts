import type { HostCliSpec } from './host-cli-provider.js';
import { readPiOutput } from './pi-output.js';

/**
 * `pi --mode json` as the observer (pi 0.73.1; AGENT-HOSTS-2.md §6, each flag checked offline):
 * no tools, no extensions (memtrace's own included), no session file, no context files, skills
 * or prompt templates; `--system-prompt` replaces pi's own prompt with the observer's (pi adds
 * the date and the directory); `--offline` skips pi's startup network calls (version check);
 * the prompt goes on stdin. pi uses the user's own login (`~/.pi/agent/auth.json`, keys, OAuth).
 * pi retries a failed call itself (a 429 took 76 s to come back, measured): project settings in
 * the scratch dir (`.pi/settings.json`, over the user's) turn its retries off, so memtrace's own
 * backoff decides. pi has no switch that caps the reply (an estimate).
 */
export const PI_CLI: HostCliSpec = {
  name: 'pi',
  binary: 'pi',
  defaultModel: null,
  limits: (maxOutputTokens) => ({ overheadTokens: 1_024, outputTokens: maxOutputTokens, outputEnforced: false }),
  files: () => [{ name: '.pi/settings.json', content: `${JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } } }, null, 2)}\n` }],
  args: (call) => [
    '--mode',
    'json',
    '--offline',
    '--no-tools',
    '--no-extensions',
    '--no-session',
    '--no-context-files',
    '--no-skills',
    '--no-prompt-templates',
    '--system-prompt',
    call.system,
    ...(call.model ? ['--model', call.model] : []),
  ],
  env: (call) => ({ TMPDIR: call.tmpDir }),
  read: (outcome, nowMs) => {
    const reply = readPiOutput(outcome.stdout, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: reply.costUsd, model: reply.model };
  },
};
