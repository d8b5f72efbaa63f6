// Prometheus's read API (query, query_range, series, labels, label values), answered in its JSON
// shape either by the embedded metrics store or by a real Prometheus (PROMETHEUS_URL). The caller
// chooses the endpoint among these five and their parameters, never the host, the path beyond
// them, the method or the headers (the original spread the caller's request options into its
// outgoing call: a server-side request forgery we do not copy).
import { formatValue } from '../json/prometheus-value.js';
import { instantQuery, rangeQuery, UnsupportedQueryError, type Labels, type QueryResult } from '../promql/evaluator.js';
import { WrittenJson } from '../json/written-json.js';
import { expectedMatrixBytes, writeMatrix } from './matrix-json.js';
import { durationMs, parsePromQL, type LabelMatcher } from '../promql/parser.js';
import { RangeResultCache, type RangeAnswer } from './range-results.js';
import { MAX_TIME_MS, TooManySeriesError, type MetricsStore } from './store.js';

/** The read endpoints a caller may reach, with the parameters each takes. */
const ENDPOINTS: { pattern: RegExp; params: string[] }[] = [
  { pattern: /^\/api\/v1\/query$/, params: ['query', 'time', 'timeout'] },
  { pattern: /^\/api\/v1\/query_range$/, params: ['query', 'start', 'end', 'step', 'timeout'] },
  { pattern: /^\/api\/v1\/series$/, params: ['match[]', 'start', 'end', 'limit'] },
  { pattern: /^\/api\/v1\/labels$/, params: ['match[]', 'start', 'end', 'limit'] },
  { pattern: /^\/api\/v1\/label\/[A-Za-z_][A-Za-z0-9_]*\/values$/, params: ['match[]', 'start', 'end', 'limit'] },
];

/** A request the caller got wrong (400), or the metrics backend failed (503). */
export class MetricsRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'bad_data' | 'unavailable',
  ) {
    super(message);
  }
}

export type MetricsParams = Record<string, string | string[]>;

export interface PrometheusApi {
  readonly name: string;
  /** Prometheus's JSON body for GET `path` (one of the read endpoints) with `params`. */
  get(path: string, params: MetricsParams): Promise<unknown>;
}

/** The parameters the read endpoint at `path` (without /prom) takes; undefined for any other path. */
export function readEndpointParams(path: string): readonly string[] | undefined {
  return ENDPOINTS.find((candidate) => candidate.pattern.test(path))?.params;
}

/** The read endpoint `path` names (a leading /prom, as the console writes it, is dropped), with only its own parameters. */
export function readRequest(path: string, given: MetricsParams): { path: string; params: MetricsParams } {
  const [withPrefix, search] = path.split('?', 2) as [string, string | undefined];
  const bare = withPrefix.replace(/^\/prom(?=\/)/, '');
  // Parameters written in the url count as given, beside `params`; a name in both is given twice.
  const params: MetricsParams = { ...given };
  for (const [name, value] of new URLSearchParams(search ?? '')) {
    const before = params[name];
    params[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  const endpoint = ENDPOINTS.find((candidate) => candidate.pattern.test(bare));
  if (!endpoint)
    throw new MetricsRequestError(`${path} is not one of Prometheus's read endpoints (/api/v1/query, /api/v1/query_range, /api/v1/series, /api/v1/labels, /api/v1/label/<name>/values)`, 'bad_data');
  const unknown = Object.keys(params).filter((name) => !endpoint.params.includes(name) && !(name === 'match' && endpoint.params.includes('match[]')));
  if (unknown.length > 0) throw new MetricsRequestError(`${bare} does not take ${unknown.map((name) => `"${name}"`).join(', ')}; it takes ${endpoint.params.join(', ')}`, 'bad_data');
  return { path: bare, params };
}

function single(params: MetricsParams, name: string): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw new MetricsRequestError(`${name} is given ${value.length} times; give it once`, 'bad_data');
    return value[0];
  }
  return value;
}

function list(params: MetricsParams, name: string): string[] {
  const value = params[name] ?? (name === 'match[]' ? params.match : undefined);
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A time as Prometheus takes it: Unix seconds (with a fraction) or RFC 3339. */
export function parseTime(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const seconds = /^-?\d+(\.\d+)?$/.test(text);
  const parsed = seconds ? Math.round(Number(text) * 1000) : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(parsed)) throw new MetricsRequestError(`${name}: cannot parse "${text}" to a valid timestamp`, 'bad_data');
  if (Math.abs(parsed) > MAX_TIME_MS) throw new MetricsRequestError(`${name}: ${text} is outside the times a timestamp may have`, 'bad_data');
  return parsed;
}

/** A step as Prometheus takes it: seconds (with a fraction) or a duration such as 15s. */
function parseStep(text: string | undefined): number {
  if (text === undefined || text === '') throw new MetricsRequestError('step: a positive duration (15s) or number of seconds is required', 'bad_data');
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (/^(\d+(ms|[smhdwy]))+$/.test(text)) return durationMs(text);
  throw new MetricsRequestError(`step: cannot parse "${text}" to a valid duration`, 'bad_data');
}

function parseMatchers(texts: string[]): LabelMatcher[][] {
  return texts.map((text) => {
    const parsed = parsePromQL(text);
    if (parsed.problem !== undefined || parsed.tree.kind !== 'selector' || parsed.tree.rangeMs !== undefined) {
      throw new MetricsRequestError(`match[]: "${text}" is not a series selector${parsed.problem ? ` (${parsed.problem})` : ''}`, 'bad_data');
    }
    return parsed.tree.matchers;
  });
}

function limitOf(params: MetricsParams): number {
  const text = single(params, 'limit');
  if (text === undefined || text === '') return Infinity;
  if (!/^\d+$/.test(text)) throw new MetricsRequestError(`limit: "${text}" is not a whole number`, 'bad_data');
  return Number(text) === 0 ? Infinity : Number(text);
}

/** Prometheus's JSON for a query result: times in seconds, values as strings. */
function toJson(result: QueryResult, timeMs: number): unknown {
  const point = (t: number, value: number) => [t / 1000, formatValue(value)];
  switch (result.resultType) {
    case 'scalar':
      return { resultType: 'scalar', result: point(timeMs, result.result) };
    case 'string':
      return { resultType: 'string', result: [timeMs / 1000, result.result] };
    case 'vector':
      return { resultType: 'vector', result: result.result.map((sample) => ({ metric: sample.labels, value: point(timeMs, sample.value) })) };
    case 'matrix':
      return { resultType: 'matrix', result: result.result.map((series) => ({ metric: series.labels, values: Array.from(series.times, (t, i) => point(t, series.values[i]!)) })) };
  }
}

const success = (data: unknown) => ({ status: 'success', data });

/** A list cut at the caller's `limit` says so, with the warning Prometheus (2.49 and later) gives. */
function limited(items: unknown[], limit: number) {
  return items.length > limit ? { ...success(items.slice(0, limit)), warnings: ['results truncated due to limit'] } : success(items);
}

/** A range query's answer, its JSON written as bytes (matrix-json.ts), the text of its settled points kept for the next refresh; GraphQL gets the value. */
function matrixAnswer(answer: RangeAnswer, start: number, step: number, timeMs: number): WrittenJson {
  return new WrittenJson(
    (out) => {
      const textsIn = writeMatrix(out, answer.series, start, step);
      answer.keepTexts(textsIn(out.done()));
    },
    () => success(toJson({ resultType: 'matrix', result: answer.series }, timeMs)),
    expectedMatrixBytes(answer.series),
  );
}

/** Bytes of range answers kept for dashboards' refreshes (a day at 15 s over 50 series takes 11-15 MB). */
const RANGE_RESULTS_BYTES = 48 * 2 ** 20;

export interface EmbeddedApiOptions {
  retentionMs: number;
  now?: () => number;
}

export function createEmbeddedPrometheusApi(store: MetricsStore, options: EmbeddedApiOptions): PrometheusApi {
  const now = options.now ?? Date.now;
  const ranges = new RangeResultCache(RANGE_RESULTS_BYTES);
  const evaluate = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof UnsupportedQueryError || error instanceof TooManySeriesError) throw new MetricsRequestError(error.message, 'bad_data');
      throw error;
    }
  };
  const query = (params: MetricsParams) => {
    const text = single(params, 'query');
    if (!text) throw new MetricsRequestError('query: a PromQL expression is required', 'bad_data');
    return text;
  };
  const window = (params: MetricsParams) => {
    const end = parseTime(single(params, 'end'), 'end', now());
    const start = parseTime(single(params, 'start'), 'start', end - options.retentionMs);
    if (end < start) throw new MetricsRequestError('end timestamp must not be before start time', 'bad_data');
    return { start, end };
  };
  const selected = async (params: MetricsParams, required: boolean): Promise<Labels[]> => {
    const matchers = parseMatchers(list(params, 'match[]'));
    if (required && matchers.length === 0) throw new MetricsRequestError('match[]: at least one series selector is required', 'bad_data');
    const { start, end } = window(params);
    return store.series(matchers, start, end);
  };

  return {
    name: 'embedded metrics store',
    async get(path, params) {
      if (path === '/api/v1/query') {
        const at = parseTime(single(params, 'time'), 'time', now());
        return success(toJson(await evaluate(() => instantQuery(store, query(params), at)), at));
      }
      if (path === '/api/v1/query_range') {
        const text = query(params);
        const start = parseTime(single(params, 'start'), 'start', NaN);
        const end = parseTime(single(params, 'end'), 'end', NaN);
        if (Number.isNaN(start) || Number.isNaN(end)) throw new MetricsRequestError('start and end are required', 'bad_data');
        const step = parseStep(single(params, 'step'));
        const request = { query: text, startMs: start, endMs: end, stepMs: step, generation: store.generation, nowMs: now() };
        const answer = await evaluate(() => ranges.answer(request, async (from, to) => (await rangeQuery(store, text, from, to, step)).result));
        return matrixAnswer(answer, start, step, end);
      }
      const limit = limitOf(params);
      if (path === '/api/v1/series') return limited(await selected(params, true), limit);
      const series = await selected(params, false);
      const label = path === '/api/v1/labels' ? undefined : path.split('/')[4]!;
      const names = new Set<string>();
      for (const labels of series) {
        if (label === undefined) for (const name of Object.keys(labels)) names.add(name);
        else if (labels[label] !== undefined) names.add(labels[label]);
      }
      return limited([...names].sort(), limit);
    },
  };
}

export function createRemotePrometheusApi(settings: { url: string; timeoutMs: number }): PrometheusApi {
  const base = settings.url.replace(/\/+$/, '');
  return {
    name: `Prometheus at ${base}`,
    async get(path, params) {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
      let response: Response;
      try {
        response = await fetch(`${base}${path}?${search.toString()}`, { method: 'GET', signal: AbortSignal.timeout(settings.timeoutMs), redirect: 'error' });
      } catch (error) {
        throw new MetricsRequestError(`Prometheus did not answer: ${(error as Error).message}`, 'unavailable');
      }
      const body = (await response.json().catch(() => undefined)) as { status?: string; error?: string } | undefined;
      if (response.status === 400 || response.status === 422) throw new MetricsRequestError(body?.error ?? `Prometheus refused the query (${response.status})`, 'bad_data');
      if (!response.ok || body?.status !== 'success') throw new MetricsRequestError(`Prometheus answered ${response.status}${body?.error ? `: ${body.error}` : ''}`, 'unavailable');
      return body;
    },
  };
}
