/**
 * `memtrace viewer` as a real process, read by headless Chromium: the printed link opens the
 * page (its token traded for a cookie), a search typed into the box shows results, and requests
 * without the cookie or through another host name (DNS rebinding) are refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { seedShop } from '../support/memory-fixtures.js';
import { rawRequest } from '../support/raw-http.js';
import { describeWithChromium, launchChromium } from '../support/headless-chromium.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
describeWithChromium('the viewer in headless Chromium', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let viewer: ChildProcess;
  let link: string;
  let origin: string;
  let browser: Browser;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-viewer-browser-');
    const store = openStore(path.join(temp.dir, 'data', 'memtrace.db'));
    seedShop(store);
    store.close();
    viewer = spawn(process.execPath, [path.join(ROOT, 'bin', 'memtrace.cjs'), 'viewer', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_TELEMETRY: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const first = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: viewer.stdout! }).once('line', resolve);
      viewer.once('exit', (code) => reject(new Error(`viewer exited ${code}`)));
    });
    expect(first).toMatch(/^viewer: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    link = first.slice('viewer: '.length);
    origin = new URL(link).origin;
    browser = await launchChromium([`--host-resolver-rules=MAP rebound.example 127.0.0.1`]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (viewer && viewer.exitCode === null) {
      const exited = new Promise((resolve) => viewer.once('exit', resolve));
      viewer.kill('SIGTERM');
      await exited;
    }
    temp?.cleanup();
  });

  it('opens through the printed link, shows the timeline, and shows results for a search typed into the page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => {
      if (new URL(r.url()).origin !== origin) foreign.push(r.url());
    });
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/`);
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: `memtrace_viewer_${new URL(origin).port}`, httpOnly: true, sameSite: 'Strict' });
    expect(await page.locator('#timeline li').count()).toBe(5);
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'viewer.png'), fullPage: true });

    await page.locator('#q').pressSequentially('why was VAT charged before the coupon');
    await page.locator('#results li a').first().waitFor();
    expect(await page.locator('#results li a').first().textContent()).toBe('Checkout total ignored the discount code');
    await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'viewer-search.png'), fullPage: true });
    await page.locator('#results li a').first().click();
    await page.locator('#provenance').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Checkout total ignored the discount code');
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    // The link was spent: another browser opening it gets nothing.
    const stranger = await browser.newContext();
    const reused = await (await stranger.newPage()).goto(link);
    expect(reused?.status()).toBe(401);
    await stranger.close();
    await context.close();
  }, 60_000);

  it('refuses a browser without the cookie (401) and a page reached through another host name (421)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const bare = await page.goto(`${origin}/`);
    expect(bare?.status()).toBe(401);
    expect(await page.content()).not.toContain('Checkout total');
    const rebound = await page.goto(`http://rebound.example:${new URL(origin).port}/`);
    expect(rebound?.status()).toBe(421);
    await context.close();
    const foreignHost = await rawRequest(`${origin}/`, { headers: { host: 'evil.example' } });
    expect(foreignHost.status).toBe(421);
  }, 60_000);
});
