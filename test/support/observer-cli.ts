/**
 * What the slow observer e2e tests share: a host CLI put on the worker's PATH behind a wrapper that
 * runs the REAL binary inside a loopback-only network namespace (`unshare -n`, as the host e2e
 * tests do), with the fake APIs' ports forwarded in; and a scratch HOME logged in the way a
 * subscription user is (Claude Code: an OAuth credentials file, no key anywhere).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bridgeUnixToTcp } from './claude-code.js';

const SANDBOX = path.join(import.meta.dirname, 'loopback-sandbox.mjs');

export interface SandboxedBin {
  /** A directory holding `name`, to put first on the worker's PATH. */
  dir: string;
  close(): Promise<void>;
}

/** `dir/name` runs `realBin` offline: only the given 127.0.0.1 ports are reachable from inside. */
export async function sandboxedBin(name: string, realBin: string, ports: number[]): Promise<SandboxedBin> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mt-obs-bin-'));
  const bridges: Array<{ close(): Promise<void> }> = [];
  const forwards: string[] = [];
  for (const port of ports) {
    const socket = path.join(dir, `${port}.sock`);
    bridges.push(await bridgeUnixToTcp(socket, port));
    forwards.push(`--forward ${port}=${socket}`);
  }
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nexec unshare -n "${process.execPath}" "${SANDBOX}" ${forwards.join(' ')} -- "${realBin}" "$@"\n`, {
    mode: 0o755,
  });
  return {
    dir,
    close: async () => {
      await Promise.all(bridges.map((b) => b.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The OAuth access token the scratch login carries; the fake API sees it as a bearer. */
export const OAUTH_TOKEN = 'sk-ant-oat01-memtrace-offline-test';

/**
 * A scratch HOME logged in to Claude Code with an OAuth credentials file (far-future expiry), with
 * a user-level hook on every event that leaves a marker file if it ever runs, and a user memory
 * file (CLAUDE.md) holding `memoryCanary`.
 */
export function oauthClaudeHome(home: string, options: { hookMarkers: string; memoryCanary: string; loggedIn?: boolean }): void {
  const claude = path.join(home, '.claude');
  fs.mkdirSync(claude, { recursive: true });
  if (options.loggedIn !== false)
    fs.writeFileSync(
      path.join(claude, '.credentials.json'),
      JSON.stringify({
        claudeAiOauth: {
          accessToken: OAUTH_TOKEN,
          refreshToken: 'sk-ant-ort01-memtrace-offline-test',
          expiresAt: Date.UTC(2099, 0, 1),
          scopes: ['user:inference', 'user:profile'],
          subscriptionType: 'max',
        },
      }),
      { mode: 0o600 },
    );
  const events = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'];
  const hooks = Object.fromEntries(
    events.map((event) => [event, [{ hooks: [{ type: 'command', command: `touch "${path.join(options.hookMarkers, event)}"` }] }]]),
  );
  fs.writeFileSync(path.join(claude, 'settings.json'), JSON.stringify({ hooks }, null, 2));
  fs.writeFileSync(path.join(claude, 'CLAUDE.md'), `Always mention ${options.memoryCanary}.\n`);
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
}

/** Every `*.jsonl` under `$HOME/.claude/projects` (where Claude Code keeps sessions). */
export function claudeTranscripts(home: string): string[] {
  const root = path.join(home, '.claude', 'projects');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.jsonl'));
}
