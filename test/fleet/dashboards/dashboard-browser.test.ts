import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector, type RunningCollector } from '../../../src/fleet/collector/index.js';
import { simulateFleet, TILES } from '../../../src/fleet/dashboards/index.js';
import { REVIEW_MEASURES } from '../../../src/fleet/review/index.js';
import { makeTempDir } from '../../support/temp-dir.js';

const CHROMIUM = '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM);
// On CI the browser must be there (.ci/run installs it); locally a missing browser skips.
const maybe = available || process.env.CI ? describe : describe.skip;

maybe('dashboard in headless Chromium', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let collector: RunningCollector;
  let browser: Browser;
  beforeAll(async () => {
    temp = makeTempDir();
    collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
    collector.store.insert(simulateFleet({ seed: 3 }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await collector?.close();
    temp?.cleanup();
  });

  it('renders every tile with marks, no console errors, no requests off this machine', async () => {
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
    const tiles = await page.$$eval('section.tile', (sections) => sections.map((s) => ({ name: s.querySelector('h2')?.textContent, marks: s.querySelectorAll('svg .mark').length })));
    expect(tiles).toHaveLength(TILES.length);
    for (const tile of tiles) expect(tile.marks, tile.name ?? '').toBeGreaterThan(0);
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
    const straddling = await review.locator('g.mark[data-verdict="no_change"]').evaluateAll((marks) => marks.map((m) => m.getBoundingClientRect()).map((r) => [r.left, r.right]));
    expect(straddling.length).toBeGreaterThan(0);
    for (const [left, right] of straddling) {
      expect(left).toBeLessThanOrEqual(zero.x + zero.width);
      expect(right).toBeGreaterThanOrEqual(zero.x);
    }
    await review.screenshot({ path: 'test-artifacts/dashboard-review.png' });
  }, 60_000);
});
