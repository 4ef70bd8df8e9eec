import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCollectorStore } from '../../src/fleet/collector/index.js';
import { chartData } from '../../src/fleet/dashboards/chart-svg.js';
import { renderChart, simulateFleet } from '../../src/fleet/dashboards/index.js';
import { decideObserverOutput } from '../../src/observer/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { growthOnDoubling } from '../support/work-counter.js';

/**
 * Bug (issue 17, item 9): tests that could not fail — the browser page checked only for a 200,
 * bounded-input time limits were loosened tenfold until they meant nothing, a mining test's last
 * assertion checked a generated id, the parse fuzz never left its fixed seeds. The replacements
 * rest on two instruments; this file shows that each of them can fail.
 */
describe('the instruments the stricter tests stand on', () => {
  it('the work counter tells a quadratic scan from the parser’s linear one', () => {
    const openers = (n: number) => `<narrative>${'<![CDATA[ x '.repeat(n)}</narrative>`;
    // What the markup guard once risked: looking for the end of a CDATA section from every opener.
    const quadratic = (text: string) => {
      let found = 0;
      for (let i = text.indexOf('<![CDATA['); i >= 0; i = text.indexOf('<![CDATA[', i + 1)) if (text.indexOf(']]>', i) >= 0) found += 1;
      return found;
    };
    expect(growthOnDoubling(openers, quadratic, 5_000).ratio).toBeGreaterThan(3.5);
    const reply = (n: number) => `<observation type="feature"><title>t</title>${openers(n)}</observation>`;
    expect(growthOnDoubling(reply, (r) => decideObserverOutput(r), 5_000).ratio).toBeLessThan(2.2);
  });

  it('every drawn mark of every tile names the series, x and value it stands for', () => {
    const temp = makeTempDir();
    const store = openCollectorStore(path.join(temp.dir, 'collector.db'));
    try {
      store.insert(simulateFleet({ seed: 5, installs: 30, weeks: 6 }));
      for (const result of store.tiles.read()) {
        const data = chartData(result);
        const known = new Map(data.series.flatMap((s) => s.values.map((v, i) => [`${s.name}\u0000${data.xs[i]}`, v] as const)));
        const marks = [...renderChart(result).matchAll(/data-series="([^"]*)" data-x="([^"]*)" data-value="([^"]*)"/g)];
        expect(marks.length, result.tile.id).toBeGreaterThan(0);
        const unescapeHtml = (s: string) =>
          s
            .replace(/&quot;/g, '"')
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&amp;/g, '&');
        for (const [, series, x, value] of marks)
          expect(known.get(`${unescapeHtml(series!)}\u0000${unescapeHtml(x!)}`), `${result.tile.id} ${series} ${x}`).toBe(Number(value));
      }
    } finally {
      store.close();
      temp.cleanup();
    }
  });
});
