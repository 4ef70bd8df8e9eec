import type { ToolEvent } from '../hosts/hook-event.js';
import { absolutePathKey } from './file-claims.js';

/**
 * Which files a tool call wrote or read, from its input only (what the agent asked the tool to
 * do). A failed call wrote nothing. Claude Code's file tools carry `file_path` /
 * `notebook_path`; a patch tool (Codex's apply_patch) names files in its patch headers. A Bash
 * command's writes are not guessed. Pure.
 */
export interface ToolEvidence {
  written: string[];
  read: string[];
}

const WRITERS: Readonly<Record<string, string>> = { Edit: 'file_path', Write: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };
const READERS: Readonly<Record<string, string>> = { Read: 'file_path', NotebookRead: 'notebook_path' };
const PATCH_HEADER = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm;
const DIFF_HEADER = /^\+\+\+ (?:b\/)?(.+?)\s*$/gm;
const MAX_PATH = 4096;

export function toolEvidence(toolName: string, toolInput: unknown, failed: boolean): ToolEvidence {
  const input = toolInput !== null && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>) : {};
  const path = (key: string | undefined) => {
    const value = key === undefined ? undefined : input[key];
    return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_PATH ? [value.trim()] : [];
  };
  const read = path(READERS[toolName]);
  if (failed) return { written: [], read };
  const written = path(WRITERS[toolName]);
  if (/patch/i.test(toolName)) {
    const texts = typeof toolInput === 'string' ? [toolInput] : Object.values(input).filter((v): v is string => typeof v === 'string');
    for (const text of texts)
      for (const pattern of [PATCH_HEADER, DIFF_HEADER])
        for (const match of text.matchAll(pattern)) if (match[1] !== '/dev/null' && match[1]!.length <= MAX_PATH) written.push(match[1]!);
  }
  return { written: [...new Set(written)], read };
}

/** A short, single-line view of a tool's input for `memtrace show` (local only). */
function inputPreview(toolInput: unknown, max = 160): string {
  let text: string;
  if (typeof toolInput === 'string') text = toolInput;
  else if (toolInput !== null && typeof toolInput === 'object') {
    const record = toolInput as Record<string, unknown>;
    const first = ['command', 'file_path', 'notebook_path', 'pattern', 'url', 'query', 'description'].find((k) => typeof record[k] === 'string');
    text = first ? `${first}: ${record[first] as string}` : (JSON.stringify(toolInput) ?? '');
  } else text = String(toolInput ?? '');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A failure's error as provenance keeps: its first lines (the whole output stays in the payload). */
const ERROR_PREVIEW_CHARS = 500;

/** What a tool event leaves as provenance once its queue row is gone (the store keeps it as given). */
export function toolEventRecord(event: ToolEvent) {
  const failed = event.kind === 'post_tool_use_failure';
  const failure =
    event.kind === 'post_tool_use_failure'
      ? { error: event.error.slice(0, ERROR_PREVIEW_CHARS), exitCode: event.exit_code ?? null }
      : { error: null, exitCode: null };
  const evidence = toolEvidence(event.tool_name, event.tool_input, failed);
  const cwd = event.cwd ?? null;
  return {
    toolName: event.tool_name,
    inputPreview: inputPreview(event.tool_input),
    failed,
    filesWritten: evidence.written,
    filesRead: evidence.read,
    writtenKeys: evidence.written.map((written) => absolutePathKey(written, cwd)),
    agentId: event.agent_id ?? null,
    agentType: event.agent_type ?? null,
    ...failure,
  };
}
