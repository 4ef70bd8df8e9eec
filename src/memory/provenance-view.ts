import type { ClaimRecord } from '../observer/claim-check.js';
import type { ParsedObservation } from '../vocabulary/observation.js';
import type { SessionRow, StoredObservation, StoredSummary, ToolEventRow } from '../store/index.js';

/** What `memtrace show` prints, as plain values (the JSON form) and as text. Pure. */
export interface ObservationView extends ParsedObservation {
  id: number;
  provenance: {
    session_id: string;
    project: string | null;
    /** The checkout it was made in: the repository's main checkout or one of its worktrees. */
    checkout: string | null;
    /** The subagent that made it (Claude Code's agent id and type); null for the main agent. */
    subagent: { id: string; type: string | null } | null;
    /** The member of a shared project who made it (their label); null: this machine. */
    origin: string | null;
    queue_ids: number[];
    tool_events: ToolEventView[];
    provider: string;
    model: string | null;
    prompt_version: string;
    created_at: string;
  };
  claims: ClaimRecord[];
}

/** A tool call as provenance shows it: what ran, and how it ended. */
export interface ToolEventView {
  queue_id: number;
  tool_use_id: string | null;
  tool_name: string;
  failed: boolean;
  /** A failure's error (its first lines) and exit code; absent when the call succeeded or they are unknown. */
  error?: string;
  exit_code?: number;
  input: string;
  /** Characters of the payload stored for the observer (large outputs are stored shortened). */
  payload_chars?: number;
  /** The subagent that made the call; absent for the main agent. */
  subagent?: { id: string; type: string | null };
}

export function toolEventView(e: ToolEventRow): ToolEventView {
  return {
    queue_id: e.queueId,
    tool_use_id: e.toolUseId,
    tool_name: e.toolName,
    failed: e.failed,
    ...(e.error !== null ? { error: e.error } : {}),
    ...(e.exitCode !== null ? { exit_code: e.exitCode } : {}),
    input: e.inputPreview,
    ...(e.payloadChars !== null ? { payload_chars: e.payloadChars } : {}),
    ...(e.agentId !== null ? { subagent: { id: e.agentId, type: e.agentType } } : {}),
  };
}

/** `Explore (a1b2c3)`: a subagent as people read it. */
export function subagentLabel(agent: { id: string; type: string | null }): string {
  return `${agent.type ?? 'subagent'} (${agent.id})`;
}

export function observationView(o: StoredObservation, events: readonly ToolEventRow[]): ObservationView {
  return {
    id: o.id,
    type: o.type,
    title: o.title,
    subtitle: o.subtitle,
    narrative: o.narrative,
    facts: o.facts,
    concepts: o.concepts,
    files_read: o.files_read,
    files_modified: o.files_modified,
    provenance: {
      session_id: o.sessionId,
      project: o.project,
      checkout: o.checkout ?? null,
      subagent: o.agentId !== null ? { id: o.agentId, type: o.agentType } : null,
      origin: o.origin,
      queue_ids: o.sourceMessageIds,
      tool_events: events.map(toolEventView),
      provider: o.provider,
      model: o.model,
      prompt_version: o.promptVersion,
      created_at: new Date(o.createdAt).toISOString(),
    },
    claims: o.claims as ClaimRecord[],
  };
}

const MARK = { verified: '✓', evidenced: '✓', rejected: '✗', removed: '✗', unverifiable: '?' } as const;

export function describeClaim(c: ClaimRecord): string {
  switch (c.kind) {
    case 'commit':
      return `${MARK[c.verdict]} commit ${c.value} (in the ${c.in}): ${c.verdict === 'verified' ? 'the repository holds it' : c.verdict === 'rejected' ? 'the repository does not hold it; the statement was removed' : 'could not be checked (no repository, or git unavailable); kept'}`;
    case 'file_modified':
      return `${MARK[c.verdict]} modified ${c.value}: ${c.verdict === 'evidenced' ? 'a tool event of the session wrote it' : 'no tool event of the session wrote it; removed'}`;
    case 'file_read':
      return `· read ${c.value} (${c.source === 'both' ? 'the model and the tool event' : c.source === 'events' ? 'from the tool event' : 'the model says'})`;
  }
}

export function renderObservation(v: ObservationView): string {
  const lines = [`observation ${v.id} · ${v.type} · ${v.title}`];
  if (v.subtitle) lines.push(`  ${v.subtitle}`);
  if (v.narrative) lines.push('', ...v.narrative.split('\n').map((l) => `  ${l}`));
  if (v.facts.length > 0) lines.push('', '  facts:', ...v.facts.map((f) => `    - ${f}`));
  if (v.concepts.length > 0) lines.push(`  concepts: ${v.concepts.join(', ')}`);
  if (v.files_read.length > 0) lines.push(`  files read: ${v.files_read.join(', ')}`);
  if (v.files_modified.length > 0) lines.push(`  files modified: ${v.files_modified.join(', ')}`);
  const p = v.provenance;
  lines.push('', 'provenance');
  lines.push(`  session   ${p.session_id}${p.project ? ` (project ${p.project})` : ''}`);
  if (p.checkout) lines.push(`  checkout  ${p.checkout}${p.checkout === p.project ? ' (the main checkout)' : ''}`);
  if (p.subagent) lines.push(`  subagent  ${subagentLabel(p.subagent)}`);
  if (p.origin) lines.push(`  from      ${p.origin}, a member of this shared project (pulled from the shared database)`);
  for (const id of p.queue_ids) {
    const e = p.tool_events.find((t) => t.queue_id === id);
    lines.push(
      e
        ? `  from      queue message ${id}: ${e.tool_name}${failedNote(e)}${e.subagent ? ` by subagent ${subagentLabel(e.subagent)}` : ''} — ${e.input}${e.tool_use_id ? `  [${e.tool_use_id}]` : ''}`
        : `  from      queue message ${id} (a summary request or transcript mining)`,
    );
  }
  lines.push(`  observer  ${p.provider} · model ${p.model ?? 'unknown'} · prompt ${p.prompt_version} · ${p.created_at}`);
  lines.push('', 'claims');
  lines.push(...(v.claims.length > 0 ? v.claims.map((c) => `  ${describeClaim(c)}`) : ['  (none: no commit hash or file was claimed)']));
  return lines.join('\n');
}

const failedNote = (e: ToolEventView) => (e.failed ? ` (failed${e.exit_code !== undefined ? `, exit code ${e.exit_code}` : ''})` : '');

export function renderSession(
  session: SessionRow,
  observations: readonly ObservationView[],
  summaries: readonly StoredSummary[],
  prompts: number,
  toolEvents: readonly ToolEventView[] = [],
): string {
  const lines = [
    `session ${session.sessionId} · ${session.status}${session.endReason ? ` (${session.endReason})` : ''}`,
    `  project   ${session.project ?? 'unknown'}`,
    ...(session.checkout ? [`  checkout  ${session.checkout}${session.checkout === session.project ? ' (the main checkout)' : ''}`] : []),
    ...(session.platform ? [`  host      ${session.platform}`] : []),
    ...(session.cwd ? [`  cwd       ${session.cwd}`] : []),
    ...(session.transcriptPath ? [`  transcript ${session.transcriptPath}`] : []),
    `  started   ${new Date(session.createdAt).toISOString()}${session.source ? ` (${session.source})` : ''} · ${prompts} prompt(s)`,
    '',
    `tool events (${toolEvents.length}, ${toolEvents.filter((e) => e.failed).length} failed)`,
    ...toolEvents.filter((e) => e.failed).map((e) => `  ${String(e.queue_id).padStart(5)}  ${e.tool_name}${failedNote(e)} — ${e.input}`),
    '',
    `observations (${observations.length})`,
  ];
  for (const o of observations) {
    const claims = o.claims as ClaimRecord[];
    const removed = claims.filter((c) => (c.kind === 'commit' && c.verdict === 'rejected') || (c.kind === 'file_modified' && c.verdict === 'removed')).length;
    const unverifiable = claims.filter((c) => c.kind === 'commit' && c.verdict === 'unverifiable').length;
    const sources = o.provenance.tool_events.map((e) => e.tool_name).join(', ') || `queue ${o.provenance.queue_ids.join(',')}`;
    const by = `${o.provenance.subagent ? ` (subagent ${subagentLabel(o.provenance.subagent)})` : ''}${o.provenance.origin ? ` (from ${o.provenance.origin})` : ''}`;
    lines.push(
      `  ${String(o.id).padStart(5)}  ${o.type.padEnd(9)} ${o.title}${by}  ← ${sources}${removed ? ` · ${removed} claim(s) removed` : ''}${unverifiable ? ` · ${unverifiable} unverifiable` : ''}`,
    );
  }
  lines.push('', `summaries (${summaries.length})`);
  for (const s of summaries) lines.push(`  ${String(s.id).padStart(5)}  ${s.completed || s.request || s.learned || s.next_steps}`.slice(0, 160));
  lines.push('', "Run 'memtrace show <observation-id>' for one observation's provenance and claims.");
  return lines.join('\n');
}
