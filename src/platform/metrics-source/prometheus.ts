// Figures from Prometheus's HTTP API (instant queries, `POST /api/v1/query` with a form body).
// The pipeline is expected to export the counters below, labelled with `dataset_id`; the gateway's
// importance score reads the original's `node_total_api_calls`. A dataset id reaches PromQL only
// as a label value, escaped as a PromQL string literal, never as query text: the original spliced
// it in raw, so an id holding `"` could rewrite the query.
import { GatewayError } from '../../errors.js';
import type { ApiCallFigures, ConnectorFigures, FreshnessFigures, MetricsSource, OutcomeFigures, Window } from './metrics-source.js';

export interface PrometheusSettings {
  /** Base URL, e.g. http://prometheus:9090 */
  url: string;
  timeoutMs: number;
}

/** Series the pipeline exports (counters unless stated), each with a `dataset_id` label. */
export const PROMETHEUS_SERIES = {
  /** Events stored after every stage; label `connector` names the instance they came through. */
  processed: 'pipeline_events_processed_total',
  /** Events a stage refused; labels `stage` (extraction, validation, dedup, denorm, transformation, master) and `connector`. */
  failed: 'pipeline_events_failed_total',
  /** Gauge: event time (Unix seconds) of the newest stored event. */
  lastEventTime: 'pipeline_last_event_timestamp_seconds',
  /** Summary/histogram of seconds from an event's own time to its arrival (`_sum` and `_count`). */
  lag: 'pipeline_event_lag_seconds',
  /** The API service's calls, labelled `dataset_id` where a call concerns one dataset. */
  apiCalls: 'node_total_api_calls',
} as const;

type Fetch = typeof globalThis.fetch;

interface Sample {
  metric: Record<string, string>;
  value: number;
}

const ANSWER_SNIPPET = 200;

/**
 * A PromQL string literal holding `value` exactly. PromQL reads double-quoted strings with Go's
 * escapes: backslash and quote are escaped, control characters written as \xHH, and lone
 * surrogates (not valid UTF-8) replaced, so no value can end the string early.
 */
export function promqlString(value: string): string {
  let out = '"';
  for (const char of value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')) {
    const code = char.codePointAt(0)!;
    if (char === '\\' || char === '"') out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** A PromQL range duration covering the window, in whole seconds. */
function range(window: Window): string {
  return `${Math.max(1, Math.round((window.to.getTime() - window.from.getTime()) / 1000))}s`;
}

export class PrometheusMetricsSource implements MetricsSource {
  readonly name: string;
  /** The instant-query endpoint, worked out once. */
  private readonly queryUrl: string;

  constructor(
    private readonly settings: PrometheusSettings,
    private readonly fetchImpl: Fetch = globalThis.fetch,
  ) {
    this.name = `Prometheus at ${settings.url}`;
    this.queryUrl = `${settings.url.replace(/\/+$/, '')}/api/v1/query`;
  }

  async freshness(datasetId: string, window: Window): Promise<FreshnessFigures> {
    const selector = `{dataset_id=${promqlString(datasetId)}}`;
    const [newest, lag] = await Promise.all([
      this.query(`max(${PROMETHEUS_SERIES.lastEventTime}${selector})`, window.to),
      this.query(`sum(increase(${PROMETHEUS_SERIES.lag}_sum${selector}[${range(window)}])) / sum(increase(${PROMETHEUS_SERIES.lag}_count${selector}[${range(window)}]))`, window.to),
    ]);
    const newestSeconds = first(newest);
    const lagSeconds = first(lag);
    return {
      newestEventTime: newestSeconds === null ? null : new Date(newestSeconds * 1000),
      averageLagMs: lagSeconds === null ? null : lagSeconds * 1000,
    };
  }

  async volume(datasetId: string, windows: readonly Window[]): Promise<number[]> {
    const selector = `{dataset_id=${promqlString(datasetId)}}`;
    const answers = await Promise.all(windows.map((window) => this.query(`sum(increase(${PROMETHEUS_SERIES.processed}${selector}[${range(window)}]))`, window.to)));
    return answers.map((samples) => count(first(samples)));
  }

  async outcomes(datasetId: string, window: Window): Promise<OutcomeFigures> {
    const selector = `{dataset_id=${promqlString(datasetId)}}`;
    const [stored, failed] = await Promise.all([
      this.query(`sum(increase(${PROMETHEUS_SERIES.processed}${selector}[${range(window)}]))`, window.to),
      this.query(`sum by (stage) (increase(${PROMETHEUS_SERIES.failed}${selector}[${range(window)}]))`, window.to),
    ]);
    const failedByStage: Record<string, number> = {};
    for (const sample of failed) failedByStage[sample.metric.stage ?? 'unknown'] = (failedByStage[sample.metric.stage ?? 'unknown'] ?? 0) + count(sample.value);
    return { stored: count(first(stored)), failedByStage };
  }

  async connectors(datasetId: string, window: Window): Promise<ConnectorFigures[]> {
    const selector = `{dataset_id=${promqlString(datasetId)}}`;
    const [stored, failed] = await Promise.all([
      this.query(`sum by (connector) (increase(${PROMETHEUS_SERIES.processed}${selector}[${range(window)}]))`, window.to),
      this.query(`sum by (connector) (increase(${PROMETHEUS_SERIES.failed}${selector}[${range(window)}]))`, window.to),
    ]);
    const byId = new Map<string, ConnectorFigures>();
    const entry = (id: string) => byId.get(id) ?? byId.set(id, { id, stored: 0, failed: 0 }).get(id)!;
    for (const sample of stored) entry(sample.metric.connector || 'unknown').stored += count(sample.value);
    for (const sample of failed) entry(sample.metric.connector || 'unknown').failed += count(sample.value);
    return [...byId.values()];
  }

  async apiCalls(datasetId: string, window: Window): Promise<ApiCallFigures> {
    const [dataset, all] = await Promise.all([
      this.query(`sum(increase(${PROMETHEUS_SERIES.apiCalls}{dataset_id=${promqlString(datasetId)}}[${range(window)}]))`, window.to),
      this.query(`sum(increase(${PROMETHEUS_SERIES.apiCalls}{dataset_id!=""}[${range(window)}]))`, window.to),
    ]);
    return { dataset: count(first(dataset)), all: count(first(all)) };
  }

  /** One instant query evaluated at `time`; the samples of its vector (or its scalar) result. */
  private async query(promql: string, time: Date): Promise<Sample[]> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.queryUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ query: promql, time: (time.getTime() / 1000).toFixed(3) }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      const e = error as { name?: string; message?: string; cause?: { code?: string } };
      throw failure(
        e?.name === 'TimeoutError' ? `${this.name} did not answer within ${this.settings.timeoutMs} ms` : `${this.name} could not be reached (${e?.cause?.code ?? e?.message ?? String(error)})`,
      );
    }
    const text = await response.text().catch(() => '');
    let body: { status?: string; error?: string; errorType?: string; data?: { resultType?: string; result?: unknown } } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (!response.ok || body?.status !== 'success') {
      const said = body?.error ? `${body.errorType ?? 'error'}: ${body.error}` : text.trim();
      throw failure(`${this.name} answered HTTP ${response.status}${said ? ` (${said.slice(0, ANSWER_SNIPPET)})` : ''}`);
    }
    const { resultType, result } = body.data ?? {};
    if (resultType === 'scalar' && Array.isArray(result)) return [{ metric: {}, value: Number(result[1]) }];
    if (resultType === 'vector' && Array.isArray(result)) {
      return result.map((item: { metric?: Record<string, string>; value?: [number, string] }) => ({ metric: item.metric ?? {}, value: Number(item.value?.[1]) }));
    }
    throw failure(`${this.name} answered a ${String(resultType)} result where an instant vector was expected`);
  }
}

function failure(what: string): GatewayError {
  return new GatewayError('FAILED_TO_FETCH_METRICS', `Error while fetching metrics: ${what}`);
}

/** The single value of an aggregated result; null for no series or NaN (nothing to aggregate). */
function first(samples: readonly Sample[]): number | null {
  const value = samples[0]?.value;
  return value === undefined || !Number.isFinite(value) ? null : value;
}

/** An event count from increase(), which extrapolates: a whole, non-negative number. */
function count(value: number | null): number {
  return value === null || !Number.isFinite(value) ? 0 : Math.max(0, Math.round(value));
}
