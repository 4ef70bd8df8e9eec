import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCollector, type RunningCollector } from '../../../src/fleet/collector/index.js';
import { chartData } from '../../../src/fleet/dashboards/chart-svg.js';
import { queryTilesDirect, simulateFleet, TILES, type ChartKind } from '../../../src/fleet/dashboards/index.js';
import { REVIEW_MEASURES } from '../../../src/fleet/review/index.js';
import { describeWithChromium, launchChromium } from '../../support/headless-chromium.js';
import { makeTempDir } from '../../support/temp-dir.js';

type Mark = [series: string, x: string, value: number];

/** Which values a chart draws a mark for: every point on a line, every non-zero bar, only positive horizontal bars. */
function drawn(chart: ChartKind, value: number | null): value is number {
  if (value === null) return false;
  if (chart === 'lines') return true;
  return chart === 'hbars' || chart === 'stacked-hbars' ? value > 0 : value !== 0;
}

const byKey = (a: Mark, b: Mark) => (`${a[0]}\u0000${a[1]}` < `${b[0]}\u0000${b[1]}` ? -1 : 1);

describeWithChromium('dashboard in headless Chromium', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let collector: RunningCollector;
  let browser: Browser;
  beforeAll(async () => {
    temp = makeTempDir();
    collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
    await collector.store.insert(simulateFleet({ seed: 3 }));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await collector?.close();
    temp?.cleanup();
  });

  it('draws every tile with the series and values its compiled SQL gives, no console errors, no requests off this machine', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => {
      if (!new URL(r.url()).hostname.startsWith('127.0.0.1')) foreign.push(r.url());
    });
    const response = await page.goto(`${collector.url}/dashboard`);
    expect(response?.status()).toBe(200);
    const tiles = await page.$$eval('section.tile', (sections) =>
      sections.map((s) => ({
        id: s.getAttribute('data-tile') ?? '',
        marks: [...s.querySelectorAll('svg .mark[data-value]')].map(
          (m) => [m.getAttribute('data-series') ?? '', m.getAttribute('data-x') ?? '', Number(m.getAttribute('data-value'))] as Mark,
        ),
        lines: [...new Set([...s.querySelectorAll('svg polyline.mark')].map((m) => m.getAttribute('data-series') ?? ''))].sort(),
      })),
    );
    expect(tiles.map((t) => t.id)).toEqual(TILES.map((t) => t.id));
    // The page draws the collector's ingest-time sums; the expected marks come from the other path,
    // each tile's compiled SQL over the stored events.
    for (const result of queryTilesDirect(collector.sqlite!.db)) {
      const data = chartData(result);
      const expected = data.series
        .flatMap((s) => s.values.flatMap((v, i): Mark[] => (drawn(result.tile.chart, v) ? [[s.name, data.xs[i]!, v]] : [])))
        .sort(byKey);
      const page = tiles.find((t) => t.id === result.tile.id)!;
      const got = [...page.marks].sort(byKey);
      expect(expected.length, `${result.tile.id}: the simulated fleet fills every tile`).toBeGreaterThan(0);
      expect(
        got.map(([series, x]) => [series, x]),
        result.tile.id,
      ).toEqual(expected.map(([series, x]) => [series, x]));
      for (const [i, [series, x, value]] of got.entries())
        expect(Math.abs(value - expected[i]![2]), `${result.tile.id} ${series} ${x}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(value)));
      if (result.tile.chart === 'lines') {
        const withLine = data.series
          .filter((s) => s.values.some((v, i) => v !== null && s.values[i + 1] !== null && s.values[i + 1] !== undefined))
          .map((s) => s.name);
        expect(page.lines, `${result.tile.id}: one line per series`).toEqual([...withLine].sort());
      }
    }
    fs.mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/dashboard.png', fullPage: true });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);

  it('draws the release review of the two newest versions under the tiles, each interval where its verdict says', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    await page.goto(`${collector.url}/dashboard`);
    const review = page.locator('section.review');
    expect(await review.getAttribute('data-baseline')).toBe('0.1.0');
    expect(await review.getAttribute('data-candidate')).toBe('0.2.0');
    // Below every tile.
    const lastTile = (await page.locator('section.tile').last().boundingBox())!;
    expect((await review.boundingBox())!.y).toBeGreaterThanOrEqual(lastTile.y + lastTile.height);
    expect(await review.locator('tbody tr').count()).toBe(REVIEW_MEASURES.length);
    expect(await review.locator('tr[data-measure="hook_ms_per_call"] td.verdict').textContent()).toBe('better');
    // The hook went from ~600 ms to ~70 ms: its whole interval is drawn left of the no-change line,
    // and a measure the simulator does not move straddles it.
    const zero = (await review.locator('svg line.zero').boundingBox())!;
    const hook = (await review.locator('g.mark[data-measure="hook_ms_per_call"]').boundingBox())!;
    expect(hook.x + hook.width).toBeLessThan(zero.x);
    const straddling = await review
      .locator('g.mark[data-verdict="no_change"]')
      .evaluateAll((marks) => marks.map((m) => m.getBoundingClientRect()).map((r) => [r.left, r.right]));
    expect(straddling.length).toBeGreaterThan(0);
    for (const [left, right] of straddling) {
      expect(left).toBeLessThanOrEqual(zero.x + zero.width);
      expect(right).toBeGreaterThanOrEqual(zero.x);
    }
    await review.screenshot({ path: 'test-artifacts/dashboard-review.png' });
  }, 60_000);
});
