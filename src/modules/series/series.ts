// Chart-ready series: a PromQL range query (or a metric alias's) answered as typed series with one
// point per step, and a dataset's ingestion per step. Both go through Prometheus's read API (the
// embedded store, or PROMETHEUS_URL), so they give the numbers the `prometheus` passthrough gives.
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import { WrittenJson } from '../../platform/json/written-json.js';
import { MetricsRequestError, type PrometheusApi } from '../../platform/metrics-store/prometheus-read-api.js';

export interface Label {
  name: string;
  value: string;
}

export interface Point {
  t: Date;
  v: number | null;
}

export interface TimeSeries {
  labels: Label[];
  points: Point[];
}

export interface IngestionPoint {
  t: Date;
  eventsIn: number;
  processed: number;
  failed: number;
  duplicates: number;
}

/** A range on the step grid: start, step (ms) and how many points. */
export interface StepGrid {
  startMs: number;
  stepMs: number;
  count: number;
}

/** Prometheus refuses more points per series than this; so do we, before asking. */
export const MAX_POINTS_PER_SERIES = 11_000;

const CODE = 'DATA_METRICS_INVALID_INPUT';

/** The grid a range and step make, or DATA_METRICS_INVALID_INPUT naming what is wrong. */
export function stepGrid(start: Date, end: Date, stepSeconds: number): StepGrid {
  checkStep(stepSeconds);
  const startMs = start.getTime();
  const endMs = end.getTime();
  if (endMs < startMs) throw new GatewayError(CODE, `end (${end.toISOString()}) is before start (${start.toISOString()})`);
  const stepMs = stepSeconds * 1000;
  const count = Math.floor((endMs - startMs) / stepMs) + 1;
  if (count > MAX_POINTS_PER_SERIES) {
    throw new GatewayError(CODE, `the range from start to end at a step of ${stepSeconds} s has ${count} points; at most ${MAX_POINTS_PER_SERIES} per series: widen the step or narrow the range`);
  }
  return { startMs, stepMs, count };
}

function checkStep(stepSeconds: number): void {
  if (!Number.isInteger(stepSeconds) || stepSeconds < 1) throw new GatewayError(CODE, `step: ${stepSeconds} is not a positive whole number of seconds`);
}

/** The range arguments a series field takes: an absolute range (start and end) or a relative one (range or last). */
export interface SeriesRange {
  start?: Date | null;
  end?: Date | null;
  /** An ISO-8601 duration (PT1H, P1DT12H, P1W) back from now. */
  range?: string | null;
  /** Seconds back from now. */
  last?: number | null;
}

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** Milliseconds of an ISO-8601 duration in weeks, days, hours, minutes and seconds (months and years have no fixed length: refused). */
export function isoDurationMs(text: string): number {
  const match = DURATION.exec(text);
  if (match === null || text === 'P' || text.endsWith('T')) {
    const hint = /^P(\d+Y|\d+M)/.test(text) ? ' (years and months have no fixed length: give days, e.g. P30D)' : '';
    throw new GatewayError(CODE, `range: ${JSON.stringify(text)} is not an ISO-8601 duration such as PT1H, PT15M, P1D or P1W${hint}`);
  }
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number];
  const ms = Math.round(((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000);
  if (ms <= 0) throw new GatewayError(CODE, `range: ${JSON.stringify(text)} is an empty duration; give a positive one such as PT1H`);
  return ms;
}

/**
 * The grid a series field's range arguments make. An absolute range is taken as given. A relative
 * one (range or last) ends on the last step boundary at or before now, boundaries being whole
 * multiples of the step since the epoch, and starts whole steps before it: two callers asking a
 * moment apart within one step get the same points (and the same batched evaluation).
 */
export function seriesGrid(given: SeriesRange, stepSeconds: number, nowMs: number): StepGrid {
  const absolute = [given.start, given.end].filter((value) => value !== null && value !== undefined).length;
  const relative = [given.range, given.last].filter((value) => value !== null && value !== undefined);
  if (relative.length > 1) throw new GatewayError(CODE, 'range and last: give one of them, not both (range as an ISO-8601 duration, last in seconds)');
  if (relative.length === 1 && absolute > 0) {
    throw new GatewayError(CODE, `${given.range != null ? 'range' : 'last'}: give either start and end, or a relative range (range or last), not both`);
  }
  if (relative.length === 0) {
    if (absolute === 0) throw new GatewayError(CODE, 'start and end, range or last: give start and end, or range (an ISO-8601 duration such as PT1H), or last (seconds)');
    if (given.start == null) throw new GatewayError(CODE, 'start: required with end (or give range or last instead)');
    if (given.end == null) throw new GatewayError(CODE, 'end: required with start (or give range or last instead)');
    return stepGrid(given.start, given.end, stepSeconds);
  }
  let spanMs: number;
  if (given.range != null) spanMs = isoDurationMs(given.range);
  else {
    const last = given.last!;
    if (!Number.isInteger(last) || last < 1) throw new GatewayError(CODE, `last: ${last} is not a positive whole number of seconds`);
    spanMs = last * 1000;
  }
  checkStep(stepSeconds);
  const stepMs = stepSeconds * 1000;
  const endMs = Math.floor(nowMs / stepMs) * stepMs;
  const steps = Math.floor(spanMs / stepMs);
  if (steps + 1 > MAX_POINTS_PER_SERIES) {
    throw new GatewayError(
      CODE,
      `${given.range != null ? 'range' : 'last'} at a step of ${stepSeconds} s has ${steps + 1} points; at most ${MAX_POINTS_PER_SERIES} per series: widen the step or narrow the range`,
    );
  }
  return { startMs: endMs - steps * stepMs, stepMs, count: steps + 1 };
}

interface MatrixSeries {
  metric: Record<string, string>;
  values: [number, string][];
}

/** Values of a matrix series on the grid, null where it has none or the value is not finite. */
function onGrid(series: MatrixSeries, grid: StepGrid): (number | null)[] {
  const values = new Array<number | null>(grid.count).fill(null);
  for (const [seconds, text] of series.values) {
    const index = Math.round((Math.round(seconds * 1000) - grid.startMs) / grid.stepMs);
    const value = Number(text);
    if (index >= 0 && index < grid.count && Number.isFinite(value)) values[index] = value;
  }
  return values;
}

const seconds = (ms: number) => String(ms / 1000);

export interface SeriesServiceOptions {
  /** The expression of the metric alias of this name, if there is one. */
  findAlias(name: string): Promise<string | undefined>;
  /** The clock relative ranges end at (Date.now unless told). */
  now?: () => number;
}

/** A text that could name an alias (no PromQL punctuation): only then is an alias looked up. */
const ALIAS_LIKE = /^[^\s{}()[\]"'`=!~,+*/%^<>]{1,200}$/;

export function createSeriesService(prometheus: PrometheusApi, options: SeriesServiceOptions) {
  const now = options.now ?? Date.now;
  async function matrix(query: string, grid: StepGrid): Promise<MatrixSeries[]> {
    let body: unknown;
    try {
      const answer = await prometheus.get('/api/v1/query_range', {
        query,
        start: seconds(grid.startMs),
        end: seconds(grid.startMs + (grid.count - 1) * grid.stepMs),
        step: seconds(grid.stepMs),
      });
      body = answer instanceof WrittenJson ? answer.toJSON() : answer;
    } catch (error) {
      if (error instanceof MetricsRequestError) throw new GatewayError(error.kind === 'bad_data' ? CODE : 'DATA_METRICS_UNAVAILABLE', error.message);
      throw error;
    }
    const data = (body as { data?: { resultType?: string; result?: unknown } } | undefined)?.data;
    if (data?.resultType !== 'matrix' || !Array.isArray(data.result))
      throw new GatewayError('DATA_METRICS_UNAVAILABLE', 'the metrics backend answered a range query with something other than a matrix');
    return data.result as MatrixSeries[];
  }

  async function expressionOf(query: string): Promise<string> {
    const text = query.trim();
    if (text === '') throw new GatewayError(CODE, 'query: a PromQL expression or the name of a metric alias is required');
    if (ALIAS_LIKE.test(text)) return (await options.findAlias(text)) ?? text;
    return text;
  }

  async function seriesOn(query: string, grid: StepGrid): Promise<TimeSeries[]> {
    const expression = await expressionOf(query);
    return (await matrix(expression, grid)).map((series) => {
      const values = onGrid(series, grid);
      return {
        labels: Object.entries(series.metric)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, value]) => ({ name, value })),
        points: values.map((v, i) => ({ t: new Date(grid.startMs + i * grid.stepMs), v })),
      };
    });
  }

  /**
   * Events of many datasets per step, in one range query: each gateway's counters read at both ends
   * of the step, the difference summed over gateways (a counter that went down restarted: its whole
   * value counts).
   */
  async function ingestionOf(datasetIds: readonly string[], grid: StepGrid): Promise<Map<string, IngestionPoint[]>> {
    // One point more, a step before start, so the first step has a beginning.
    const widened = { startMs: grid.startMs - grid.stepMs, stepMs: grid.stepMs, count: grid.count + 1 };
    const distinct = [...new Set(datasetIds)];
    const selector = distinct.length === 1 ? `dataset=${JSON.stringify(distinct[0])}` : `dataset=~${JSON.stringify(distinct.map(escapeRegex).join('|'))}`;
    const series = await matrix(`gateway_ingestion_events_total{${selector}}`, widened);
    const byDataset = new Map<string, IngestionPoint[]>();
    for (const id of distinct)
      byDataset.set(
        id,
        Array.from({ length: grid.count }, (_, i) => ({ t: new Date(grid.startMs + i * grid.stepMs), eventsIn: 0, processed: 0, failed: 0, duplicates: 0 })),
      );
    const field = { received: 'eventsIn', processed: 'processed', failed: 'failed', duplicate: 'duplicates' } as const;
    for (const one of series) {
      const stage = one.metric.stage as keyof typeof field | undefined;
      const points = byDataset.get(one.metric.dataset ?? '');
      if (points === undefined || stage === undefined || !(stage in field)) continue;
      const values = onGrid(one, widened);
      for (let i = 1; i < values.length; i += 1) {
        const now = values[i];
        if (now === null || now === undefined) continue;
        const before = values[i - 1];
        points[i - 1]![field[stage]] += before === null || before === undefined || now < before ? now : now - before;
      }
    }
    return byDataset;
  }

  return {
    /** Every series the expression gives over the range, with a point per step (null where absent). */
    metricSeries(query: string, start: Date, end: Date, stepSeconds: number): Promise<TimeSeries[]> {
      return seriesOn(query, stepGrid(start, end, stepSeconds));
    },

    /** metricSeries over an absolute or a relative range (seriesGrid). */
    metricSeriesOver(query: string, range: SeriesRange, stepSeconds: number): Promise<TimeSeries[]> {
      return seriesOn(query, seriesGrid(range, stepSeconds, now()));
    },

    /** Events in, processed, failed and duplicates of one dataset per step. */
    async ingestionSeries(datasetId: string, start: Date, end: Date, stepSeconds: number): Promise<IngestionPoint[]> {
      return (await ingestionOf([datasetId], stepGrid(start, end, stepSeconds))).get(datasetId)!;
    },

    /** The grid of a series field's range arguments now (seriesGrid). */
    gridOf(range: SeriesRange, stepSeconds: number): StepGrid {
      return seriesGrid(range, stepSeconds, now());
    },

    /**
     * A request's batch of ingestion series: every dataset of a page asking for the same grid is
     * one range query (one evaluation, a few statements), not one per dataset.
     */
    createIngestionLoader(): DataLoader<IngestionSeriesKey, IngestionPoint[], string> {
      return new DataLoader(
        async (keys) => {
          const byGrid = new Map<string, { grid: StepGrid; ids: string[] }>();
          for (const { datasetId, grid } of keys) {
            const key = gridKey(grid);
            let group = byGrid.get(key);
            if (group === undefined) byGrid.set(key, (group = { grid, ids: [] }));
            group.ids.push(datasetId);
          }
          const answers = new Map<string, Map<string, IngestionPoint[]>>();
          await Promise.all([...byGrid].map(async ([key, { grid, ids }]) => answers.set(key, await ingestionOf(ids, grid))));
          return keys.map(({ datasetId, grid }) => answers.get(gridKey(grid))!.get(datasetId)!);
        },
        { cacheKeyFn: ({ datasetId, grid }) => `${gridKey(grid)}/${datasetId}` },
      );
    },
  };
}

/** A dataset's ingestion series on a grid: what the request's loader batches. */
export interface IngestionSeriesKey {
  datasetId: string;
  grid: StepGrid;
}

const gridKey = (grid: StepGrid) => `${grid.startMs}:${grid.stepMs}:${grid.count}`;

/** A text matched literally inside an RE2 pattern (Prometheus's label matchers). */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

export type SeriesService = ReturnType<typeof createSeriesService>;
