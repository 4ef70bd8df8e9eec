import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { TILES } from '../../../src/fleet/dashboards/index.js';
import { captureIO } from '../../support/cli-io.js';
import { startFakePostHogApi } from '../../support/fake-posthog-api.js';

describe('memtrace dashboards push', () => {
  let api: Awaited<ReturnType<typeof startFakePostHogApi>>;
  afterEach(() => api?.close());

  it('creates on the first run, updates on the second, duplicates nothing', async () => {
    api = await startFakePostHogApi('phx_personal');
    const env = { POSTHOG_PERSONAL_API_KEY: 'phx_personal', POSTHOG_PROJECT_ID: '42', POSTHOG_API_HOST: api.url };
    const first = captureIO({ env });
    expect(await main(['dashboards', 'push'], first.io)).toBe(0);
    expect(first.stdout()).toContain(`${TILES.length} insight(s) created`);
    expect(api.store.dashboards).toHaveLength(1);
    expect(api.store.insights).toHaveLength(TILES.length);
    const dashboardId = api.store.dashboards[0]!.id;
    expect(api.store.insights.every((i) => (i.dashboards as number[]).includes(dashboardId))).toBe(true);
    expect(api.store.insights.every((i) => (i.query as { source: { kind: string } }).source.kind === 'HogQLQuery')).toBe(true);

    const second = captureIO({ env });
    expect(await main(['dashboards', 'push'], second.io)).toBe(0);
    expect(second.stdout()).toContain(`0 insight(s) created, ${TILES.length} updated`);
    expect(api.store.dashboards).toHaveLength(1);
    expect(api.store.insights).toHaveLength(TILES.length);
  });

  it('names the missing variables', async () => {
    const c = captureIO({ env: {} });
    expect(await main(['dashboards', 'push'], c.io)).toBe(1);
    expect(c.stderr()).toContain('POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID');
  });

  it('reports an API refusal in one line', async () => {
    api = await startFakePostHogApi('right-key');
    const c = captureIO({ env: { POSTHOG_PERSONAL_API_KEY: 'wrong', POSTHOG_PROJECT_ID: '1', POSTHOG_API_HOST: api.url } });
    expect(await main(['dashboards', 'push'], c.io)).toBe(1);
    expect(c.stderr()).toContain('answered 401');
  });
});

describe('memtrace dashboards export and report', () => {
  it('exports a dashboard and one DataVisualizationNode insight per tile', async () => {
    const c = captureIO();
    expect(await main(['dashboards', 'export'], c.io)).toBe(0);
    const spec = JSON.parse(c.stdout());
    expect(spec.dashboard.name).toBe('memtrace fleet');
    expect(spec.insights).toHaveLength(TILES.length);
    expect(spec.insights[0].query).toMatchObject({ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery' } });
  });

  it('reports the tiles as JSON from a simulated store', async () => {
    const { makeTempDir } = await import('../../support/temp-dir.js');
    const temp = makeTempDir();
    const db = `${temp.dir}/collector.db`;
    const sim = captureIO();
    expect(await main(['collector', '--simulate', '--exit', '--db', db, '--installs', '20', '--weeks', '4'], sim.io)).toBe(0);
    const c = captureIO();
    expect(await main(['dashboards', 'report', '--db', db, '--json'], c.io)).toBe(0);
    const tiles = JSON.parse(c.stdout());
    expect(tiles).toHaveLength(TILES.length);
    expect(tiles[0].rows.length).toBeGreaterThan(0);
    temp.cleanup();
  });

  it('says where to get a store when there is none', async () => {
    const c = captureIO();
    expect(await main(['dashboards', 'report', '--db', '/nonexistent/collector.db'], c.io)).toBe(1);
    expect(c.stderr()).toContain('no collector store');
  });
});
