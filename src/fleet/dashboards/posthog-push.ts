import { DASHBOARD_TAG, exportDashboard, type DashboardSpec } from './posthog-export.js';

export interface PushConfig {
  /** PostHog's app/API host (not the ingestion host), e.g. https://us.posthog.com. */
  apiHost: string;
  projectId: string;
  personalApiKey: string;
}

export interface PushDeps {
  fetch?: typeof fetch;
  progress?: (line: string) => void;
}

type Action = 'created' | 'updated';

export interface PushResult {
  dashboard: { id: number; action: Action };
  insights: Array<{ name: string; id: number; action: Action }>;
}

/** A refusal or failure from the PostHog API, with what to do about it. */
export class PostHogApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'PostHogApiError';
  }
}

interface Item {
  id: number;
  name?: string | null;
  tags?: string[];
  deleted?: boolean;
  dashboards?: number[];
}

const MAX_PAGES = 50;

/**
 * Idempotent: the dashboard and each insight are found by exact name (preferring one tagged
 * `memtrace`), then updated with PATCH, or created with POST when missing. Names decide, not
 * tags, because projects on plans without tagging drop tags silently.
 */
export async function pushDashboards(config: PushConfig, deps: PushDeps = {}, spec: DashboardSpec = exportDashboard()): Promise<PushResult> {
  const doFetch = deps.fetch ?? fetch;
  const host = config.apiHost.replace(/\/+$/, '');
  const base = `${host}/api/projects/${encodeURIComponent(config.projectId)}`;

  const call = async (method: string, url: string, body?: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: { authorization: `Bearer ${config.personalApiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new PostHogApiError(`could not reach ${host}: ${error instanceof Error ? error.message : String(error)}`, null);
    }
    const text = await response.text();
    if (!response.ok) throw new PostHogApiError(explain(response.status, method, url.slice(host.length), text, config.projectId), response.status);
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      throw new PostHogApiError(`PostHog API ${method} ${url.slice(host.length)} answered ${response.status} with a body that is not JSON`, response.status);
    }
  };

  /** Every page of a list; `next` is followed only on the same host, so the key never goes elsewhere. */
  const list = async (firstUrl: string): Promise<Item[]> => {
    const items: Item[] = [];
    let url: string | null = firstUrl;
    for (let page = 0; url && page < MAX_PAGES; page += 1) {
      const body = (await call('GET', url)) as { results?: Item[]; next?: string | null } | null;
      items.push(...(body?.results ?? []));
      url = typeof body?.next === 'string' && body.next.startsWith(`${host}/`) ? body.next : null;
    }
    return items;
  };

  const find = (items: Item[], name: string): Item | null => {
    const named = items.filter((i) => i.name === name && !i.deleted).sort((a, b) => a.id - b.id);
    return named.find((i) => i.tags?.includes(DASHBOARD_TAG)) ?? named[0] ?? null;
  };

  const dashboards = await list(`${base}/dashboards/?limit=100`);
  const existingDashboard = find(dashboards, spec.dashboard.name);
  const savedDashboard = (
    existingDashboard
      ? await call('PATCH', `${base}/dashboards/${existingDashboard.id}/`, spec.dashboard)
      : await call('POST', `${base}/dashboards/`, spec.dashboard)
  ) as Item | null;
  const dashboardId = savedDashboard?.id ?? existingDashboard?.id;
  if (typeof dashboardId !== 'number') throw new PostHogApiError('PostHog API did not return the dashboard id', null);
  const dashboard = { id: dashboardId, action: (existingDashboard ? 'updated' : 'created') as Action };
  deps.progress?.(`dashboard "${spec.dashboard.name}" ${dashboard.action} (id ${dashboard.id})`);

  const insights: PushResult['insights'] = [];
  for (const [i, insight] of spec.insights.entries()) {
    const existing = find(await list(`${base}/insights/?search=${encodeURIComponent(insight.name)}&limit=100`), insight.name);
    // Keep the insight on any other dashboard someone added it to.
    const onDashboards = [...new Set([...(existing?.dashboards ?? []), dashboard.id])];
    const body = { ...insight, dashboards: onDashboards };
    const saved = (existing ? await call('PATCH', `${base}/insights/${existing.id}/`, body) : await call('POST', `${base}/insights/`, body)) as Item | null;
    const id = saved?.id ?? existing?.id;
    if (typeof id !== 'number') throw new PostHogApiError(`PostHog API did not return an id for insight "${insight.name}"`, null);
    const action: Action = existing ? 'updated' : 'created';
    insights.push({ name: insight.name, id, action });
    deps.progress?.(`[${i + 1}/${spec.insights.length}] insight "${insight.name}" ${action} (id ${id})`);
  }
  return { dashboard, insights };
}

function explain(status: number, method: string, path: string, body: string, projectId: string): string {
  const detail = body.replace(/\s+/g, ' ').slice(0, 200);
  const what = `PostHog API ${method} ${path} answered ${status}`;
  if (status === 401) return `${what}: the personal API key was refused (POSTHOG_PERSONAL_API_KEY) — ${detail}`;
  if (status === 403) return `${what}: the key lacks a scope; it needs insight:write and dashboard:write — ${detail}`;
  if (status === 404) return `${what}: no project ${projectId} there (POSTHOG_PROJECT_ID, POSTHOG_API_HOST) — ${detail}`;
  return `${what}: ${detail}`;
}
