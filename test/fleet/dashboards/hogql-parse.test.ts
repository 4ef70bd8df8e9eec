import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportDashboard, TILES } from '../../../src/fleet/dashboards/index.js';
import { dashboardBody, insightBody } from '../../support/posthog-shapes.js';

interface ParseError {
  error: true;
  type: string;
  message: string;
}
type Ast = { node: string; select?: Array<{ node: string; alias?: string; chain?: string[] }> } | ParseError;

/** PostHog's own HogQL parser (ANTLR grammar compiled to WebAssembly). */
let parser: HogQLParser;
const parsed = new Map<string, Ast>();
const parseSelect = (sql: string): Ast => {
  let ast = parsed.get(sql);
  if (ast === undefined) {
    ast = JSON.parse(parser.parseSelect(sql, true)) as Ast;
    parsed.set(sql, ast);
  }
  return ast;
};
const columnsOf = (ast: Ast): string[] => ('error' in ast ? [] : (ast.select ?? []).map((s) => s.alias ?? s.chain?.at(-1) ?? ''));

describe('the HogQL that dashboards export produces', () => {
  beforeAll(async () => {
    parser = await createHogQLParser();
  });
  const spec = exportDashboard();

  // PostHog's parser is WebAssembly and slow on a loaded machine: a hang guard, not a speed check.
  it.each(spec.insights.map((i) => [i.name, i] as const))('"%s" parses with PostHog\'s parser', { timeout: 300_000 }, (_, insight) => {
    const ast = parseSelect(insight.query.source.query);
    expect('error' in ast ? `${ast.type}: ${ast.message}` : ast.node).toBe('SelectQuery');
  });

  it.each(spec.insights.map((i) => [i.name, i] as const))('"%s" charts columns its query returns', (_, insight) => {
    const columns = columnsOf(parseSelect(insight.query.source.query));
    const settings = insight.query.chartSettings;
    const wanted = [settings.xAxis.column, ...settings.yAxis.map((y) => y.column), ...(settings.seriesBreakdownColumn ? [settings.seriesBreakdownColumn] : [])];
    for (const column of wanted) expect(columns).toContain(column);
  });

  it('catches a deliberately broken query', () => {
    const good = spec.insights.map((i) => i.query.source.query).sort((a, b) => a.length - b.length)[0]!;
    for (const broken of [good.replace(/\)\s*$/m, ''), good.replace('GROUP BY uuid', 'GROUP uuid'), good.replace(/multiIf\(/, 'multiIf(,'), `${good} ORDER`]) {
      const ast = parseSelect(broken);
      expect('error' in ast && ast.type).toBe('SyntaxError');
    }
  });

  it("exports insight and dashboard JSON in the shapes PostHog's API accepts", () => {
    expect(spec.insights).toHaveLength(TILES.length);
    expect(() => dashboardBody.parse(spec.dashboard)).not.toThrow();
    for (const insight of spec.insights) {
      const result = insightBody.safeParse({ ...insight, dashboards: [1] });
      expect(result.success ? 'ok' : `${insight.name}: ${result.error.message}`).toBe('ok');
    }
  });

  it('rejects a shape PostHog would not take (the check can fail)', () => {
    const insight = spec.insights[0]!;
    expect(insightBody.safeParse({ ...insight, query: { ...insight.query, display: 'ActionsStacked' } }).success).toBe(false);
    expect(insightBody.safeParse({ ...insight, query: { ...insight.query, source: { kind: 'HogQLQuery', sql: 'SELECT 1' } } }).success).toBe(false);
  });
});
