import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * Writes Claude Code transcripts in the documented real shapes (CLAUDE-CODE.md): one line per
 * content block sharing message.id; a tool_result in a later user line carrying toolUseResult;
 * a compact_boundary system line with compactMetadata, then an isCompactSummary user line;
 * common fields uuid, parentUuid, sessionId, timestamp, cwd, version, gitBranch, isSidechain.
 */
export class TranscriptBuilder {
  readonly lines: string[] = [];
  private parent: string | null = null;
  private atMs: number;
  private n = 0;
  /** Set for a subagent's transcript: its lines are a sidechain carrying the subagent's id. */
  agentId: string | null = null;

  constructor(
    readonly sessionId: string = crypto.randomUUID(),
    readonly cwd = '/work/app',
    startMs = Date.UTC(2025, 5, 1, 10, 0, 0),
    readonly version = '2.1.197',
  ) {
    this.atMs = startMs;
  }

  private common(): Record<string, unknown> {
    this.atMs += 1_000;
    return {
      parentUuid: this.parent,
      isSidechain: this.agentId !== null,
      ...(this.agentId !== null ? { agentId: this.agentId } : {}),
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: 'main',
    };
  }

  private push(line: Record<string, unknown>): string {
    const uuid = (line.uuid as string | undefined) ?? crypto.randomUUID();
    const full = { ...line, uuid, timestamp: new Date(this.atMs).toISOString() };
    this.lines.push(JSON.stringify(full));
    this.parent = uuid;
    return uuid;
  }

  /** The timestamp the next line will carry (ms). */
  nextAtMs(): number {
    return this.atMs + 1_000;
  }

  prompt(text: string): string {
    return this.push({ ...this.common(), type: 'user', message: { role: 'user', content: text } });
  }

  /** One assistant content block as its own line (real transcripts split a response this way). */
  assistantBlock(block: Record<string, unknown>, messageId: string): string {
    return this.push({
      ...this.common(),
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      requestId: `req_${messageId.slice(4)}`,
      type: 'assistant',
    });
  }

  newMessageId(): string {
    this.n += 1;
    return `msg_${crypto.randomBytes(8).toString('hex')}${this.n}`;
  }

  text(text: string, messageId = this.newMessageId()): string {
    this.assistantBlock({ type: 'text', text }, messageId);
    return messageId;
  }

  thinking(text: string, messageId = this.newMessageId()): string {
    this.assistantBlock({ type: 'thinking', thinking: text, signature: 'sig' }, messageId);
    return messageId;
  }

  /** A tool_use block line; returns the tool_use id (the hooks' tool_use_id). */
  toolUse(name: string, input: unknown, messageId = this.newMessageId()): string {
    const id = `toolu_${crypto.randomBytes(12).toString('hex')}`;
    this.assistantBlock({ type: 'tool_use', id, name, input }, messageId);
    return id;
  }

  toolResult(toolUseId: string, options: { content?: unknown; toolUseResult?: unknown; isError?: boolean } = {}): string {
    const block: Record<string, unknown> = { tool_use_id: toolUseId, type: 'tool_result', content: options.content ?? 'ok' };
    if (options.isError) block.is_error = true;
    const line: Record<string, unknown> = { ...this.common(), type: 'user', message: { role: 'user', content: [block] } };
    if (options.toolUseResult !== undefined) line.toolUseResult = options.toolUseResult;
    return this.push(line);
  }

  /** A whole tool call: tool_use then its result; returns the id. */
  call(name: string, input: unknown, toolUseResult: unknown = { stdout: `ran ${name}`, stderr: '', interrupted: false }): string {
    const id = this.toolUse(name, input);
    this.toolResult(id, { content: typeof toolUseResult === 'string' ? toolUseResult : JSON.stringify(toolUseResult).slice(0, 200), toolUseResult });
    return id;
  }

  /** A compaction: the boundary line, then the summary line (context, not a prompt). */
  compact(options: { trigger?: 'auto' | 'manual'; preserved?: { headUuid: string; tailUuid: string } } = {}): { boundary: string; summary: string } {
    const logicalParent = this.parent;
    this.parent = null;
    const metadata: Record<string, unknown> = { trigger: options.trigger ?? 'auto', preTokens: 155_000 };
    const boundaryUuid = crypto.randomUUID();
    if (options.preserved) metadata.preservedSegment = { headUuid: options.preserved.headUuid, anchorUuid: boundaryUuid, tailUuid: options.preserved.tailUuid };
    const boundary = this.push({
      ...this.common(),
      parentUuid: null,
      logicalParentUuid: logicalParent,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      compactMetadata: metadata,
      uuid: boundaryUuid,
    });
    const summary = this.push({
      ...this.common(),
      type: 'user',
      message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context. Summary: …' },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
    });
    return { boundary, summary };
  }

  snapshot(): void {
    const messageId = crypto.randomUUID();
    this.lines.push(
      JSON.stringify({
        type: 'file-history-snapshot',
        messageId,
        snapshot: { messageId, trackedFileBackups: {}, timestamp: new Date(this.atMs).toISOString() },
        isSnapshotUpdate: false,
      }),
    );
  }

  turnDuration(): void {
    this.push({ ...this.common(), type: 'system', subtype: 'turn_duration', durationMs: 1234, isMeta: false });
  }

  raw(line: string): void {
    this.lines.push(line);
  }

  /** Repeats an already written line (Claude Code re-writes lines on resume). */
  repeatLine(index: number): void {
    this.lines.push(this.lines[index]!);
  }

  /** Lines since `from` as file text, each ending in '\n'. */
  textFrom(from = 0): string {
    const part = this.lines.slice(from);
    return part.length === 0 ? '' : `${part.join('\n')}\n`;
  }

  /** Writes the whole transcript; returns how many lines it had (for appendTo). */
  writeTo(file: string): number {
    fs.writeFileSync(file, this.textFrom(0));
    return this.lines.length;
  }

  /** Appends the lines written since `from` (a file that grows). */
  appendTo(file: string, from: number): number {
    fs.appendFileSync(file, this.textFrom(from));
    return this.lines.length;
  }
}
