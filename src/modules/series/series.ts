// Chart-ready series: a PromQL range query (or a metric alias's) answered as typed series with one
// point per step, and a dataset's ingestion per step. Both go through Prometheus's read API (the
// embedded store, or PROMETHEUS_URL), so they give the numbers the `prometheus` passthrough gives.
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
  if (!Number.isInteger(stepSeconds) || stepSeconds < 1) throw new GatewayError(CODE, `step: ${stepSeconds} is not a positive whole number of seconds`);
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
}

/** A text that could name an alias (no PromQL punctuation): only then is an alias looked up. */
const ALIAS_LIKE = /^[^\s{}()[\]"'`=!~,+*/%^<>]{1,200}$/;

export function createSeriesService(prometheus: PrometheusApi, options: SeriesServiceOptions) {
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

  return {
    /** Every series the expression gives over the range, with a point per step (null where absent). */
    async metricSeries(query: string, start: Date, end: Date, stepSeconds: number): Promise<TimeSeries[]> {
      const grid = stepGrid(start, end, stepSeconds);
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
    },

    /**
     * Events of one dataset per step: each gateway's counters read at both ends of the step, the
     * difference summed over gateways (a counter that went down restarted: its whole value counts).
     */
    async ingestionSeries(datasetId: string, start: Date, end: Date, stepSeconds: number): Promise<IngestionPoint[]> {
      const grid = stepGrid(start, end, stepSeconds);
      // One point more, a step before start, so the first step has a beginning.
      const widened = { startMs: grid.startMs - grid.stepMs, stepMs: grid.stepMs, count: grid.count + 1 };
      const series = await matrix(`gateway_ingestion_events_total{dataset=${JSON.stringify(datasetId)}}`, widened);
      const points: IngestionPoint[] = Array.from({ length: grid.count }, (_, i) => ({ t: new Date(grid.startMs + i * grid.stepMs), eventsIn: 0, processed: 0, failed: 0, duplicates: 0 }));
      const field = { received: 'eventsIn', processed: 'processed', failed: 'failed', duplicate: 'duplicates' } as const;
      for (const one of series) {
        const stage = one.metric.stage as keyof typeof field | undefined;
        if (stage === undefined || !(stage in field)) continue;
        const values = onGrid(one, widened);
        for (let i = 1; i < values.length; i += 1) {
          const now = values[i];
          if (now === null || now === undefined) continue;
          const before = values[i - 1];
          points[i - 1]![field[stage]] += before === null || before === undefined || now < before ? now : now - before;
        }
      }
      return points;
    },
  };
}

export type SeriesService = ReturnType<typeof createSeriesService>;
