import { describeClaim, subagentLabel, type ObservationView } from '../memory/provenance-view.js';
import { summarySections, type SearchHit, type TimelineItem } from '../memory/index.js';
import type { ClaimRecord } from '../observer/claim-check.js';
import type { SessionRow, StoredSummary } from '../store/index.js';
import { LIVE_SEARCH_SCRIPT } from './viewer-script.js';

/**
 * The viewer's pages, rendered on the server from values. Pure. Everything shown is escaped;
 * the only script is the small live-search one (run under a per-response nonce), and nothing is
 * loaded from anywhere else.
 */
export interface SessionListItem {
  session: SessionRow;
  observations: number;
  summaries: number;
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');
/** A shared project's member who made the item (docs/sharing.md); nothing for this machine's own. */
const fromWhom = (origin: string | null | undefined) => (origin ? ` · <span class="origin">from ${esc(origin)}</span>` : '');
const iso = (ms: number) => new Date(ms).toISOString();

const STYLE = `
*{box-sizing:border-box}body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f8fafc;color:#0f172a;line-height:1.45}
header{background:#0f172a;color:#f8fafc;padding:14px 24px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
header a{color:#f8fafc;text-decoration:none;font-weight:600;font-size:18px}header a.nav{font-weight:400;font-size:14px;color:#cbd5e1}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e2e8f0}
form.search{flex:1;display:flex;gap:8px;min-width:260px}form.search input{flex:1;padding:8px 10px;border-radius:6px;border:1px solid #475569;font-size:15px}
form.search button{padding:8px 14px;border-radius:6px;border:0;background:#38bdf8;color:#0f172a;font-weight:600}
main{padding:20px 24px;display:grid;grid-template-columns:minmax(220px,1fr) 3fr;gap:24px}main.single{display:block;max-width:980px}
h1{font-size:20px;margin:0 0 10px}h2{font-size:15px;text-transform:uppercase;letter-spacing:.05em;color:#475569;margin:0 0 8px}
ul.list{list-style:none;margin:0;padding:0}ul.list li{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:8px 12px;margin-bottom:8px}
ul.list a{color:#0369a1;text-decoration:none}ul.list a:hover{text-decoration:underline}
.meta{color:#64748b;font-size:12px}.tag{display:inline-block;font-size:11px;padding:1px 6px;border-radius:9px;background:#e0f2fe;color:#075985;margin-right:6px}
.tag.summary{background:#fef3c7;color:#92400e}.snippet{color:#334155;font-size:14px;margin-top:2px}
section.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:14px 18px;margin-bottom:16px}
pre{white-space:pre-wrap;font-family:inherit;margin:0}.claims li{margin:2px 0}.empty{color:#64748b}
`;

export function page(title: string, body: string, options: { nonce: string; query?: string; single?: boolean }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} · memtrace</title><style nonce="${esc(options.nonce)}">${STYLE}</style></head>
<body><header><a href="/">memtrace memory</a><a href="/spend" class="nav">observer spend</a>
<form class="search" action="/search" method="get" role="search"><input id="q" name="q" type="search" placeholder="Search memory in your own words…" value="${esc(options.query ?? '')}" autocomplete="off" aria-label="Search memory"><button type="submit">Search</button></form></header>
<main id="main" class="${options.single ? 'single' : ''}">${body}</main>
<script nonce="${esc(options.nonce)}">${LIVE_SEARCH_SCRIPT}</script></body></html>`;
}

function itemLine(i: TimelineItem): string {
  const link = i.kind === 'observation' ? `/observation/${i.id}` : `/session/${encodeURIComponent(i.session_id)}`;
  return `<li><span class="tag${i.kind === 'summary' ? ' summary' : ''}">${esc(i.kind === 'summary' ? 'session summary' : i.type)}</span><a href="${esc(link)}">${esc(i.title || '(untitled)')}</a>
<div class="meta">${esc(day(i.created_at))} · ${i.kind === 'observation' ? `#${i.id}` : `summary ${i.id}`} · session <a href="/session/${esc(encodeURIComponent(i.session_id))}">${esc(i.session_id.slice(0, 12))}</a>${i.project ? ` · ${esc(i.project)}` : ''}${fromWhom(i.origin)}</div></li>`;
}

function hitLine(h: SearchHit): string {
  const link = h.kind === 'observation' ? `/observation/${h.id}` : `/session/${encodeURIComponent(h.session_id)}`;
  return `<li><span class="tag${h.kind === 'summary' ? ' summary' : ''}">${esc(h.kind === 'summary' ? 'session summary' : h.type)}</span><a href="${esc(link)}">${esc(h.title || '(untitled)')}</a>
<div class="snippet">${esc(h.snippet)}</div><div class="meta">${esc(day(h.created_at))} · ${h.kind === 'observation' ? `#${h.id}` : `summary ${h.id}`}${h.project ? ` · ${esc(h.project)}` : ''}${fromWhom(h.origin)} · score ${esc(h.score)}</div></li>`;
}

export function homeBody(sessions: readonly SessionListItem[], recent: readonly TimelineItem[]): string {
  const sessionList = sessions.length
    ? sessions
        .map(
          (s) =>
            `<li><a href="/session/${esc(encodeURIComponent(s.session.sessionId))}">${esc((s.session.prompt ?? '').slice(0, 80) || s.session.sessionId.slice(0, 12))}</a><div class="meta">${esc(s.session.project ?? 'no project')} · ${esc(day(iso(s.session.createdAt)))} · ${s.observations} observation(s) · ${s.summaries} summary(ies)</div></li>`,
        )
        .join('\n')
    : '<li class="empty">No sessions yet.</li>';
  const timeline = recent.length ? [...recent].reverse().map(itemLine).join('\n') : '<li class="empty">No memory stored yet.</li>';
  return `<section><h2>Sessions</h2><ul class="list" id="sessions">${sessionList}</ul></section>
<section><h2>Timeline, newest first</h2><ul class="list" id="timeline">${timeline}</ul></section>`;
}

export function searchBody(query: string, hits: readonly SearchHit[], problem: string | null): string {
  const results = problem
    ? `<li class="empty">${esc(problem)}</li>`
    : hits.length
      ? hits.map(hitLine).join('\n')
      : `<li class="empty">No memory matches “${esc(query)}”.</li>`;
  return `<h1>Search: ${esc(query)}</h1><ul class="list" id="results">${results}</ul>`;
}

export function sessionBody(session: SessionRow | null, sessionId: string, items: readonly TimelineItem[], summaries: readonly StoredSummary[]): string {
  const head = session
    ? `<h1>Session ${esc(sessionId)}</h1><p class="meta">${esc(session.project ?? 'no project')} · started ${esc(day(iso(session.createdAt)))} · ${esc(session.status)}${session.endReason ? ` (${esc(session.endReason)})` : ''}${session.platform ? ` · ${esc(session.platform)}` : ''}${session.checkout && session.checkout !== session.project ? ` · checkout ${esc(session.checkout)}` : ''}</p>`
    : `<h1>Session ${esc(sessionId)}</h1>`;
  const summaryCards = summaries
    .map((s) => {
      return `<section class="card"><h2>Session summary · ${esc(day(iso(s.createdAt)))}</h2>${summarySections(s)
        .map(([k, v]) => `<p><strong>${esc(k)}:</strong> ${esc(v)}</p>`)
        .join('')}</section>`;
    })
    .join('\n');
  return `${head}${summaryCards}<h2>Timeline, newest first</h2><ul class="list" id="timeline">${[...items].reverse().map(itemLine).join('\n') || '<li class="empty">Nothing stored.</li>'}</ul>`;
}

export function observationBody(v: ObservationView): string {
  const list = (items: readonly string[]) => (items.length ? `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>` : '');
  const p = v.provenance;
  const sources = p.queue_ids
    .map((id) => {
      const e = p.tool_events.find((t) => t.queue_id === id);
      return `<li>queue message ${id}${e ? `: ${esc(e.tool_name)}${e.failed ? ' (failed)' : ''}${e.subagent ? ` by subagent ${esc(subagentLabel(e.subagent))}` : ''} — <code>${esc(e.input)}</code>${e.tool_use_id ? ` [${esc(e.tool_use_id)}]` : ''}` : ' (a summary request, an import, or no longer kept)'}</li>`;
    })
    .join('');
  const claims =
    (v.claims as ClaimRecord[]).map((c) => `<li>${esc(describeClaim(c))}</li>`).join('') || '<li class="empty">No commit hash or file was claimed.</li>';
  return `<section class="card"><span class="tag">${esc(v.type)}</span><h1>${esc(v.title)}</h1>${v.subtitle ? `<p>${esc(v.subtitle)}</p>` : ''}<pre>${esc(v.narrative)}</pre>
${v.facts.length ? `<h2>Facts</h2>${list(v.facts)}` : ''}${v.concepts.length ? `<p class="meta">Concepts: ${esc(v.concepts.join(', '))}</p>` : ''}
${v.files_modified.length ? `<h2>Files modified</h2>${list(v.files_modified)}` : ''}${v.files_read.length ? `<h2>Files read</h2>${list(v.files_read)}` : ''}</section>
<section class="card" id="provenance"><h2>Provenance</h2><p>Observation #${v.id} · session <a href="/session/${esc(encodeURIComponent(p.session_id))}">${esc(p.session_id)}</a>${p.project ? ` · ${esc(p.project)}` : ''} · ${esc(day(p.created_at))}</p>${p.checkout ? `<p class="meta" id="checkout">checkout ${esc(p.checkout)}${p.checkout === p.project ? ' (the main checkout)' : ''}</p>` : ''}${p.subagent ? `<p class="meta" id="subagent">made by subagent ${esc(subagentLabel(p.subagent))}</p>` : ''}${p.origin ? `<p class="meta" id="origin">from ${esc(p.origin)}, a member of this shared project</p>` : ''}
<p class="meta">observer ${esc(p.provider)} · model ${esc(p.model ?? 'unknown')} · prompt ${esc(p.prompt_version)}</p><ul>${sources || '<li class="empty">No source messages recorded.</li>'}</ul></section>
<section class="card" id="claims"><h2>Claim checks</h2><ul class="claims">${claims}</ul></section>`;
}

export function messageBody(title: string, message: string): string {
  return `<h1>${esc(title)}</h1><p>${esc(message)}</p>`;
}
