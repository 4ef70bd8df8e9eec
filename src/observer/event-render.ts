/**
 * What one tool event contributes to an observer call, cut to what the observer needs
 * (docs/observer.md#what-each-event-contributes). Pure. The observer writes memory for later
 * sessions of the same repository, so what the repository already holds is named, not copied:
 * - a file read (Read, read_file) is its path and line range — the content is in the repository;
 * - an edit (Edit, MultiEdit, replace) is its diff (old → new), never the whole file before it;
 * - a file written (Write, write_file) is its path, size and the head and tail of what was written;
 * - a patch (apply_patch) is the patch, which is already a diff;
 * - a command (Bash, run_shell_command) is the command and the head and tail of its output (the
 *   start of a log says what ran, the end how it ended);
 * - a search is its pattern and its first matches; anything else is its input and the head and tail
 *   of its output. A failure keeps the head and tail of its error.
 * Each event is one `<event id="eN" …>` block; lines are `name: value`, so a field can be added
 * (a subagent's type, say) without touching the rest.
 */

export interface EventView {
  toolName: string;
  toolInput: unknown;
  toolResponse: unknown;
  /** Set when the call failed: its error text and exit code. */
  failure?: { error: string; exitCode?: number | null; interrupted?: boolean } | null;
  atMs: number;
  /** The subagent that made the call, when the host says so (shown as `subagent: <type>`). */
  subagentType?: string | null;
}

/** Characters kept per part (chosen from measured sessions; the figures are in docs/observer.md). */
export const EVENT_CUTS = {
  command: 1_000,
  output: 2_400,
  error: 1_600,
  diff: 3_000,
  written: 1_200,
  matches: 1_000,
  input: 1_000,
  path: 512,
} as const;

/** Tool names by what they do, across Claude Code, Gemini CLI and Codex. */
const READERS = new Set(['Read', 'NotebookRead', 'read_file', 'read_many_files', 'view_image']);
const EDITORS = new Set(['Edit', 'MultiEdit', 'replace', 'NotebookEdit']);
const WRITERS = new Set(['Write', 'write_file']);
const SHELLS = new Set(['Bash', 'run_shell_command', 'exec_command', 'shell', 'local_shell', 'BashOutput']);
const PATCHES = new Set(['apply_patch']);
const SEARCHES = new Set(['Grep', 'Glob', 'LS', 'grep_search', 'glob', 'list_directory', 'search_file_content']);

export function renderEvent(event: EventView, ref: string): string {
  const input = asRecord(event.toolInput);
  const lines: string[] = [];
  if (event.subagentType) lines.push(`subagent: ${oneLine(event.subagentType, 80)}`);
  const name = event.toolName;
  if (READERS.has(name)) lines.push(...readLines(input, event.toolResponse));
  else if (EDITORS.has(name)) lines.push(...editLines(input));
  else if (WRITERS.has(name)) lines.push(...writeLines(input));
  else if (SHELLS.has(name)) lines.push(...shellLines(input, event.toolResponse, event.failure ?? null));
  else if (PATCHES.has(name)) lines.push(...patchLines(event.toolInput, event.toolResponse));
  else if (SEARCHES.has(name)) lines.push(...searchLines(input, event.toolResponse));
  else lines.push(...otherLines(event.toolInput, event.toolResponse, event.failure ?? null));
  if (event.failure && !SHELLS.has(name)) lines.push(block('error', headTail(event.failure.error, EVENT_CUTS.error)));
  const result = event.failure
    ? `failed${event.failure.exitCode !== null && event.failure.exitCode !== undefined ? `, exit ${event.failure.exitCode}` : ''}${event.failure.interrupted ? ', interrupted' : ''}`
    : 'ok';
  const time = new Date(event.atMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `<event id="${ref}" tool="${attr(name)}" time="${time}" result="${result}">\n${lines.join('\n')}\n</event>`;
}

function readLines(input: Record<string, unknown>, response: unknown): string[] {
  const file = str(input.file_path) ?? str(input.notebook_path) ?? str(input.absolute_path) ?? str(input.path) ?? listOf(input.paths) ?? '(unknown)';
  const out = [`file: ${oneLine(file, EVENT_CUTS.path)}`];
  const meta = asRecord(asRecord(response).file);
  const start = num(meta.startLine) ?? num(input.offset);
  const count = num(meta.numLines) ?? num(input.limit);
  const total = num(meta.totalLines);
  if (start !== null || count !== null || total !== null) {
    const from = start ?? 1;
    const range = count !== null ? `${from}-${from + Math.max(0, count - 1)}` : `from ${from}`;
    out.push(`lines: ${range}${total !== null ? ` of ${total}` : ''}`);
  }
  return out;
}

function editLines(input: Record<string, unknown>): string[] {
  const file = str(input.file_path) ?? str(input.notebook_path) ?? '(unknown)';
  const edits = Array.isArray(input.edits) ? input.edits.map(asRecord) : [input];
  const diff = edits
    .map((e) => diffOf(str(e.old_string) ?? str(e.old_source) ?? '', str(e.new_string) ?? str(e.new_source) ?? ''))
    .filter((d) => d !== '')
    .join('\n@@\n');
  return [`file: ${oneLine(file, EVENT_CUTS.path)}`, block('diff', headTail(diff, EVENT_CUTS.diff))];
}

function writeLines(input: Record<string, unknown>): string[] {
  const file = str(input.file_path) ?? str(input.path) ?? '(unknown)';
  const content = str(input.content) ?? '';
  return [`file: ${oneLine(file, EVENT_CUTS.path)}`, block(`content (${lineCount(content)} lines)`, headTail(content, EVENT_CUTS.written))];
}

function shellLines(input: Record<string, unknown>, response: unknown, failure: EventView['failure']): string[] {
  const command = str(input.command) ?? str(input.cmd) ?? (Array.isArray(input.command) ? input.command.join(' ') : null) ?? compactJson(input);
  const out = [block('command', headTail(command, EVENT_CUTS.command))];
  const r = asRecord(response);
  const stdout = typeof response === 'string' ? response : (str(r.stdout) ?? str(r.llmContent) ?? str(r.output) ?? str(r.returnDisplay) ?? '');
  const stderr = typeof response === 'string' ? '' : (str(r.stderr) ?? '');
  if (stdout !== '') out.push(block(`output (${lineCount(stdout)} lines)`, headTail(stdout, EVENT_CUTS.output)));
  if (stderr !== '') out.push(block(`stderr (${lineCount(stderr)} lines)`, headTail(stderr, EVENT_CUTS.error)));
  if (failure) out.push(block('error', headTail(failure.error, EVENT_CUTS.error)));
  return out;
}

function patchLines(toolInput: unknown, response: unknown): string[] {
  const patch = typeof toolInput === 'string' ? toolInput : (str(asRecord(toolInput).command) ?? str(asRecord(toolInput).input) ?? compactJson(toolInput));
  const result = typeof response === 'string' ? response : compactJson(response);
  return [block('patch', headTail(patch, EVENT_CUTS.diff)), `result: ${oneLine(result, 200)}`];
}

function searchLines(input: Record<string, unknown>, response: unknown): string[] {
  const query = ['pattern', 'path', 'glob', 'dir_path', 'include'].flatMap((k) => (str(input[k]) ? [`${k}=${oneLine(str(input[k])!, 200)}`] : []));
  const r = asRecord(response);
  const found =
    typeof response === 'string'
      ? response
      : Array.isArray(response)
        ? response.map(String).join('\n')
        : Array.isArray(r.matches)
          ? r.matches.map(String).join('\n')
          : Array.isArray(r.filenames)
            ? r.filenames.map(String).join('\n')
            : (str(r.content) ?? str(r.llmContent) ?? str(r.returnDisplay) ?? compactJson(response));
  return [`query: ${query.join(' ') || oneLine(compactJson(input), 300)}`, block(`matches (${lineCount(found)} lines)`, headTail(found, EVENT_CUTS.matches))];
}

function otherLines(toolInput: unknown, response: unknown, failure: EventView['failure']): string[] {
  const out = [block('input', headTail(compactJson(toolInput), EVENT_CUTS.input))];
  if (!failure && response !== undefined && response !== null) {
    const text = typeof response === 'string' ? response : compactJson(response);
    out.push(block('output', headTail(text, EVENT_CUTS.output)));
  }
  return out;
}

/** A line diff of an edit: removed lines with `-`, added with `+`, the common head and tail left out. */
function diffOf(before: string, after: string): string {
  if (before === '' && after === '') return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return [...a.slice(head, a.length - tail).map((l) => `-${l}`), ...b.slice(head, b.length - tail).map((l) => `+${l}`)].join('\n');
}

/**
 * The head and the tail of a text within `max` characters, cut at line ends where it can, with a
 * marker saying how much went. Counts code points, so a surrogate pair is never split; walks the
 * string by index instead of spreading it, since a tool's output can be megabytes on the hook path.
 */
export function headTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const total = codePoints(text);
  if (total <= max) return text;
  const marker = (lines: number, chars: number) => `\n… [${lines} lines, ${chars} characters cut] …\n`;
  const budget = Math.max(0, max - 48);
  let head = text.slice(0, indexAfter(text, Math.ceil(budget * 0.6)));
  let tail = text.slice(indexBefore(text, Math.floor(budget * 0.4)));
  const headBreak = head.lastIndexOf('\n');
  if (headBreak > head.length / 2) head = head.slice(0, headBreak);
  const tailBreak = tail.indexOf('\n');
  if (tailBreak !== -1 && tailBreak < tail.length / 2) tail = tail.slice(tailBreak + 1);
  const cut = total - codePoints(head) - codePoints(tail);
  return `${head}${marker(lineCount(text.slice(head.length, text.length - tail.length)), cut)}${tail}`;
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Code points in the text: a surrogate pair counts once, a lone surrogate once. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    n += 1;
    if (isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) i += 1;
  }
  return n;
}

/** The index just past the first `points` code points. */
function indexAfter(text: string, points: number): number {
  let i = 0;
  for (let n = 0; n < points && i < text.length; n += 1) i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  return i;
}

/** The index where the last `points` code points begin. */
function indexBefore(text: string, points: number): number {
  let i = text.length;
  for (let n = 0; n < points && i > 0; n += 1) i -= i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? 2 : 1;
  return i;
}

function block(name: string, text: string): string {
  return text.includes('\n') || text.length > 80 ? `${name}:\n${text}` : `${name}: ${text}`;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return text.endsWith('\n') ? n - 1 : n;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function attr(text: string): string {
  return oneLine(text, 128).replace(/[<>&"]/g, '_');
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function listOf(value: unknown): string | null {
  return Array.isArray(value) ? value.map(String).join(', ') : null;
}

function compactJson(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
