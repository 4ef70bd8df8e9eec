import { z } from 'zod';

/**
 * The shapes PostHog's API accepts for what `dashboards export|push` sends, transcribed from
 * PostHog's query schema (frontend/src/queries/schema: DataVisualizationNode, HogQLQuery,
 * ChartSettings, ChartAxis) and its insight and dashboard endpoints. Strict: a key PostHog does
 * not know would be dropped silently there, so here it fails.
 */
const CHART_DISPLAY_TYPES = [
  'ActionsLineGraph',
  'ActionsBar',
  'ActionsUnstackedBar',
  'ActionsStackedBar',
  'ActionsAreaGraph',
  'ActionsLineGraphCumulative',
  'BoldNumber',
  'ActionsPie',
  'ActionsBarValue',
  'ActionsTable',
  'WorldMap',
  'CalendarHeatmap',
] as const;

const formatting = z
  .object({
    prefix: z.string().optional(),
    suffix: z.string().optional(),
    style: z.enum(['none', 'number', 'percent']).optional(),
    decimalPlaces: z.number().int().min(0).optional(),
  })
  .strict();
const display = z
  .object({
    color: z.string().optional(),
    label: z.string().optional(),
    trendLine: z.boolean().optional(),
    yAxisPosition: z.enum(['left', 'right']).optional(),
    displayType: z.enum(['auto', 'line', 'bar']).optional(),
  })
  .strict();
const chartAxis = z
  .object({ column: z.string().min(1), settings: z.object({ formatting: formatting.optional(), display: display.optional() }).strict().optional() })
  .strict();
const yAxisSettings = z
  .object({
    scale: z.enum(['linear', 'logarithmic']).optional(),
    startAtZero: z.boolean().optional(),
    showGridLines: z.boolean().optional(),
    showTicks: z.boolean().optional(),
  })
  .strict();
const goalLine = z
  .object({
    label: z.string(),
    value: z.number(),
    borderColor: z.string().optional(),
    displayLabel: z.boolean().optional(),
    displayIfCrossed: z.boolean().optional(),
  })
  .strict();

const chartSettings = z
  .object({
    xAxis: chartAxis.optional(),
    yAxis: z.array(chartAxis).optional(),
    goalLines: z.array(goalLine).optional(),
    yAxisAtZero: z.boolean().optional(),
    leftYAxisSettings: yAxisSettings.optional(),
    rightYAxisSettings: yAxisSettings.optional(),
    stackBars100: z.boolean().optional(),
    seriesBreakdownColumn: z.string().nullable().optional(),
    showXAxisTicks: z.boolean().optional(),
    showXAxisBorder: z.boolean().optional(),
    showYAxisBorder: z.boolean().optional(),
    showLegend: z.boolean().optional(),
    showTotalRow: z.boolean().optional(),
  })
  .strict();

const hogQLQuery = z
  .object({
    kind: z.literal('HogQLQuery'),
    query: z.string().min(1),
    name: z.string().optional(),
    values: z.record(z.unknown()).optional(),
    variables: z.record(z.unknown()).optional(),
    explain: z.boolean().nullable().optional(),
    tags: z.record(z.unknown()).optional(),
  })
  .strict();

const dataVisualizationNode = z
  .object({
    kind: z.literal('DataVisualizationNode'),
    source: hogQLQuery,
    display: z.enum(CHART_DISPLAY_TYPES).optional(),
    chartSettings: chartSettings.optional(),
    tableSettings: z
      .object({ columns: z.array(chartAxis).optional() })
      .strict()
      .optional(),
  })
  .strict();

/** POST/PATCH /api/projects/:id/insights/ — `dashboards` is how an insight becomes a dashboard tile. */
export const insightBody = z
  .object({
    name: z.string().min(1).max(400),
    description: z.string().max(400).optional(),
    tags: z.array(z.string()).optional(),
    saved: z.boolean().optional(),
    query: dataVisualizationNode,
    dashboards: z.array(z.number().int().positive()).optional(),
  })
  .strict();

/** POST/PATCH /api/projects/:id/dashboards/ */
export const dashboardBody = z
  .object({ name: z.string().min(1).max(400), description: z.string().optional(), tags: z.array(z.string()).optional(), pinned: z.boolean().optional() })
  .strict();

/** POST /api/projects/:id/query/ — the query API's request (a query node plus optional run settings). */
export const queryRequest = z
  .object({
    query: hogQLQuery,
    name: z.string().optional(),
    refresh: z.enum(['blocking', 'async', 'force_blocking', 'force_async', 'lazy_async', 'force_cache']).optional(),
    client_query_id: z.string().optional(),
    async: z.boolean().optional(),
  })
  .strict();
