/**
 * The scripted session every Claude Code e2e run, fixture capture and bench uses: a Bash call that
 * succeeds, a Read, an Edit of the file read, a Bash call that fails, then a final answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ScriptTurn } from './fake-anthropic.js';

export const BASIC_PROMPT = 'Say hi, read notes.txt, change beta to gamma, then run a command that fails.';
export const BASIC_FINAL_TEXT = 'Done: notes.txt now says gamma; the last command failed with exit code 3.';
const NOTES_BEFORE = 'alpha\nbeta\n';

/** Writes the project's starting files; returns the absolute path of notes.txt. */
export function writeBasicProject(projectDir: string): string {
  const notes = path.join(projectDir, 'notes.txt');
  fs.writeFileSync(notes, NOTES_BEFORE);
  return notes;
}

/** The four tool turns and the final text; tool_use ids are fixed so payloads can be matched. */
export function basicScript(notesPath: string): ScriptTurn[] {
  return [
    { toolCalls: [{ id: 'toolu_e2e_bash_ok', name: 'Bash', input: { command: 'echo hi', description: 'Say hi' } }] },
    { toolCalls: [{ id: 'toolu_e2e_read', name: 'Read', input: { file_path: notesPath } }] },
    { toolCalls: [{ id: 'toolu_e2e_edit', name: 'Edit', input: { file_path: notesPath, old_string: 'beta', new_string: 'gamma' } }] },
    {
      text: 'Now a command that fails.',
      toolCalls: [{ id: 'toolu_e2e_bash_fail', name: 'Bash', input: { command: 'exit 3', description: 'Fail on purpose' } }],
    },
    { text: BASIC_FINAL_TEXT },
  ];
}
