/** The real Gemini CLI, Codex and Copilot CLI payloads and transcripts in test/fixtures/hosts (see its README). */
import fs from 'node:fs';
import path from 'node:path';

const HOST_FIXTURES = path.resolve(import.meta.dirname, '../fixtures/hosts');

export function hostPayload(host: 'gemini-cli' | 'codex' | 'copilot', set: 'captured' | 'session', name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(HOST_FIXTURES, host, set, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** Every payload of a set, in firing order, with the host event name from its file name. */
export function hostPayloads(
  host: 'gemini-cli' | 'codex' | 'copilot',
  set: 'captured' | 'session',
): Array<{ event: string; payload: Record<string, unknown> }> {
  const dir = path.join(HOST_FIXTURES, host, set);
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d\d-\w+\.json$/.test(name))
    .sort()
    .map((name) => ({ event: name.slice(3, -5), payload: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown> }));
}

export const hostTranscript = (host: 'gemini-cli' | 'codex' | 'copilot', name: string) => path.join(HOST_FIXTURES, host, 'session', name);
