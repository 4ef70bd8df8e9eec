import { exportDashboard, DASHBOARD_TAG, type InsightSpec } from './posthog-export.js';
import type { Tile } from './tile-ir.js';

export interface PushConfig {
  apiHost: string;
  projectId: string;
  personalApiKey: string;
}

export interface PushResult {
  dashboard: { id: number; action: 'created' | 'updated' };
  insights: Array<{ name: string; id: number; action: 'created' | 'updated' }>;
}

/**
 * Idempotent: finds the dashboard and each insight by name (and the memtrace tag), then
 * updates it, or creates it when missing. Running it twice changes nothing but the content.
 */
export async function pushDashboards(config: PushConfig, deps: { fetch?: typeof fetch; tiles?: readonly Tile[]; progress?: (line: string) => void } = {}): Promise<PushResult> {
  const doFetch = deps.fetch ?? fetch;
  const base = `${config.apiHost.replace(/\/+$/, '')}/api/projects/${encodeURIComponent(config.projectId)}`;
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await doFetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${config.personalApiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`PostHog API ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
  const findByName = async (path: string, name: string) => {
    const page = await call('GET', `${path}?search=${encodeURIComponent(name)}&limit=100`);
    const results: Array<{ id: number; name: string; tags?: string[]; deleted?: boolean }> = page?.results ?? [];
    return results.find((r) => r.name === name && !r.deleted && (r.tags ?? [DASHBOARD_TAG]).includes(DASHBOARD_TAG)) ?? null;
  };

  const spec = exportDashboard(deps.tiles);
  const existingDashboard = await findByName('/dashboards/', spec.dashboard.name);
  const dashboard = existingDashboard
    ? { id: (await call('PATCH', `/dashboards/${existingDashboard.id}/`, spec.dashboard)).id as number, action: 'updated' as const }
    : { id: (await call('POST', '/dashboards/', spec.dashboard)).id as number, action: 'created' as const };
  deps.progress?.(`dashboard "${spec.dashboard.name}" ${dashboard.action} (id ${dashboard.id})`);

  const insights: PushResult['insights'] = [];
  for (const insight of spec.insights) {
    const body: InsightSpec & { dashboards: number[] } = { ...insight, dashboards: [dashboard.id] };
    const existing = await findByName('/insights/', insight.name);
    const saved = existing ? await call('PATCH', `/insights/${existing.id}/`, body) : await call('POST', '/insights/', body);
    insights.push({ name: insight.name, id: saved.id, action: existing ? 'updated' : 'created' });
    deps.progress?.(`insight "${insight.name}" ${existing ? 'updated' : 'created'} (id ${saved.id})`);
  }
  return { dashboard, insights };
}
