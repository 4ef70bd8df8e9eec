import type { SpendTotals } from '../store/index.js';
import { usdText } from '../vocabulary/usd-text.js';

/**
 * The observer's spend as the viewer shows it: calls, tool events, tokens in and out and cost, per
 * UTC day and per session, from the spend ledger. Pure; everything shown is escaped.
 */
export interface DaySpend extends SpendTotals {
  day: string;
  /** Tokens counted against that day's budget (unknown usage at its reservation). */
  counted: number;
}

export interface SessionSpend extends SpendTotals {
  sessionId: string;
  lastAt: number;
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = (x: number) => x.toLocaleString('en-US');

function costText(t: SpendTotals): string {
  if (t.costUsd === null) return 'unknown';
  return `${usdText(t.costUsd)}${t.costEstimated ? ' (est.)' : ''}`;
}

function cells(t: SpendTotals): string {
  const unknown = t.callsUsageUnknown > 0 ? ` <span class="meta">(${t.callsUsageUnknown} unknown)</span>` : '';
  return `<td>${n(t.calls)}${unknown}</td><td>${n(t.events)}</td><td>${n(t.tokensIn)}</td><td>${n(t.tokensOut)}</td><td>${esc(costText(t))}</td>`;
}

const HEAD = '<th>calls</th><th>tool events</th><th>tokens in</th><th>tokens out</th><th>cost</th>';

export function spendBody(days: readonly DaySpend[], sessions: readonly SessionSpend[], budgetTokens: number | null): string {
  const budget =
    budgetTokens === null ? '' : `<p class="meta">Daily budget: ${n(budgetTokens)} tokens (MEMTRACE_OBSERVER_BUDGET_TOKENS, input + output per UTC day).</p>`;
  const dayRows = days.length
    ? days.map((d) => `<tr><td>${esc(d.day)}</td>${cells(d)}<td>${n(d.counted)}</td></tr>`).join('\n')
    : '<tr><td colspan="7" class="empty">No observer calls yet.</td></tr>';
  const sessionRows = sessions.length
    ? sessions
        .map((s) => `<tr><td><a href="/session/${esc(encodeURIComponent(s.sessionId))}">${esc(s.sessionId.slice(0, 12))}</a></td>${cells(s)}</tr>`)
        .join('\n')
    : '<tr><td colspan="6" class="empty">No observer calls yet.</td></tr>';
  return `<h1>Observer spend</h1>${budget}<p class="meta">Costs marked (est.) come from list prices; a subscription plan (Claude Code, Gemini CLI, Codex logins) bills its own way.</p>
<section class="card"><h2>Per UTC day</h2><table id="spend-days"><tr><th>day</th>${HEAD}<th>budget tokens counted</th></tr>${dayRows}</table></section>
<section class="card"><h2>Per session, most recent first</h2><table id="spend-sessions"><tr><th>session</th>${HEAD}</tr>${sessionRows}</table></section>`;
}

/** One line on a session's page. */
export function sessionSpendLine(t: SpendTotals): string {
  if (t.calls === 0) return '<p class="meta" id="session-spend">Observer: no calls yet.</p>';
  return `<p class="meta" id="session-spend">Observer: ${n(t.calls)} call(s) for ${n(t.events)} tool event(s), ${n(t.tokensIn)} tokens in / ${n(t.tokensOut)} out, cost ${esc(costText(t))}</p>`;
}
