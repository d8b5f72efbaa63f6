// Prometheus's HTTP API at /prometheus/api/v1/... for Grafana's Prometheus data source and promtool:
// query, query_range, series, labels, label values (GET, or POST with a form body as Grafana sends
// them), metadata and status/buildinfo. Answered by the same PrometheusApi as POST /v2/data/metrics
// (the embedded store, or PROMETHEUS_URL), behind the gateway's own authentication: the caller needs
// api.data.metrics, as for the console's dashboards. Failures take Prometheus's shape
// ({status: "error", errorType, error}), which Grafana and promtool show as they are.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AccessControl, Authentication } from '../auth/access.js';
import { GatewayError } from '../errors.js';
import { PROMETHEUS_API_PREFIX, prometheusFailure, sendGatewayFailure } from '../http/prometheus-failure.js';
import type { Logger } from '../logger.js';
import type { Transport } from './transport.js';
import { jsonBodyOf } from '../platform/json/written-json.js';
import { MetricsRequestError, readEndpointParams, type MetricsParams, type PrometheusApi } from '../platform/metrics-store/prometheus-read-api.js';

/** The API id a caller needs: the console's dashboards read the same figures with it. */
export const PROMETHEUS_API_ID = 'api.data.metrics';

/**
 * The Prometheus release whose API and PromQL the embedded store answers as (status/buildinfo):
 * Grafana picks the features it uses by it, and the tests compare with this release's promtool.
 */
export const EMBEDDED_PROMETHEUS_VERSION = '2.42.0';

export interface MetricMetadata {
  type: string;
  help: string;
  unit: string;
}

export interface PrometheusHttpOptions {
  prometheus: PrometheusApi;
  accessControl: AccessControl;
  logger: Logger;
  gatewayVersion: string;
  /** The embedded store's metric families; absent when PROMETHEUS_URL answers (metadata and buildinfo are then its own). */
  metadata?: () => Promise<Record<string, MetricMetadata[]>>;
  /** Largest form body a POST may send (a dashboard's long expression fits easily). */
  bodyLimitBytes: number;
}

/** Query-string and form parameters together, as Prometheus reads them (a name given in both counts twice). */
function paramsOf(req: Request): MetricsParams {
  const params: MetricsParams = {};
  const add = (source: unknown) => {
    if (source === null || typeof source !== 'object') return;
    for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
      const values = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
      if (values.length === 0) continue;
      const before = params[name];
      const all = before === undefined ? values : [...(Array.isArray(before) ? before : [before]), ...values];
      params[name] = all.length === 1 ? all[0]! : all;
    }
  };
  add(req.query);
  if (req.is('application/x-www-form-urlencoded')) add(req.body);
  return params;
}

/** Only the parameters the endpoint takes: Prometheus ignores the others (Grafana adds some of its own). */
function ownParams(params: MetricsParams, names: readonly string[]): MetricsParams {
  const kept: MetricsParams = {};
  for (const name of names) {
    const value = params[name] ?? (name === 'match[]' ? params.match : undefined);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** Metric families as Prometheus's metadata lists them, from the registry's snapshot (a histogram once, by its family name). */
export function metricFamilies(snapshot: readonly { name: string; help: string; type: unknown }[]): Record<string, MetricMetadata[]> {
  return Object.fromEntries(snapshot.map((family) => [family.name, [{ type: String(family.type), help: family.help, unit: '' }]]));
}

function metadataAnswer(families: Record<string, MetricMetadata[]>, params: MetricsParams): unknown {
  const single = (name: string) => (Array.isArray(params[name]) ? params[name][0] : params[name]);
  const metric = single('metric');
  const limitText = single('limit');
  const limit = limitText === undefined || limitText === '' ? Infinity : Number(limitText);
  if (!Number.isInteger(limit) && limit !== Infinity) throw new MetricsRequestError(`limit: "${limitText}" is not a whole number`, 'bad_data');
  const names = Object.keys(families)
    .filter((name) => metric === undefined || metric === '' || name === metric)
    .sort();
  return { status: 'success', data: Object.fromEntries(names.slice(0, limit <= 0 ? Infinity : limit).map((name) => [name, families[name]])) };
}

function prometheusApiRouter(options: PrometheusHttpOptions): express.Router {
  const { prometheus, accessControl, logger } = options;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: options.bodyLimitBytes, parameterLimit: 1_000 });

  // Authentication ran before (use-auth.ts); here the access check, before any body is read.
  router.use(PROMETHEUS_API_PREFIX, async (req: Request, res: Response, next: NextFunction) => {
    try {
      // A promise when the rate limit is decided in the shared store (RATE_LIMIT_STORE=postgres).
      await accessControl.forRequest((res.locals.auth as Authentication | undefined) ?? {}, req.ip).admit([PROMETHEUS_API_ID]);
      next();
    } catch (error) {
      if (error instanceof GatewayError) return sendGatewayFailure(res, error);
      next(error);
    }
  });

  const answer = (run: (params: MetricsParams) => Promise<unknown>) => async (req: Request, res: Response) => {
    try {
      const body = await run(paramsOf(req));
      res.setHeader('cache-control', 'no-store');
      res.type('application/json').send(jsonBodyOf(body));
    } catch (error) {
      if (error instanceof MetricsRequestError) {
        return error.kind === 'bad_data' ? prometheusFailure(res, 400, 'bad_data', error.message) : prometheusFailure(res, 503, 'unavailable', error.message);
      }
      if (error instanceof GatewayError) return sendGatewayFailure(res, error);
      logger.error({ err: error, requestId: res.locals.requestId }, 'unexpected error in the Prometheus API');
      prometheusFailure(res, 500, 'internal', `the query failed (request ${String(res.locals.requestId)})`);
    }
  };

  const read = (path: string, names: readonly string[]) => answer((params) => prometheus.get(path, ownParams(params, names)));
  for (const path of ['/api/v1/query', '/api/v1/query_range', '/api/v1/series', '/api/v1/labels']) {
    router.all(`${PROMETHEUS_API_PREFIX}${path}`, methods, form, read(path, readEndpointParams(path)!));
  }
  router.all(`${PROMETHEUS_API_PREFIX}/api/v1/label/:name/values`, methods, form, (req: Request, res: Response) => {
    const path = `/api/v1/label/${req.params.name as string}/values`;
    const names = readEndpointParams(path);
    if (!names) return prometheusFailure(res, 400, 'bad_data', `invalid label name: "${req.params.name as string}"`);
    return read(path, names)(req, res);
  });

  const metadata = options.metadata;
  router.all(
    `${PROMETHEUS_API_PREFIX}/api/v1/metadata`,
    methods,
    form,
    answer(async (params) => (metadata ? metadataAnswer(await metadata(), params) : prometheus.get('/api/v1/metadata', ownParams(params, ['metric', 'limit', 'limit_per_metric'])))),
  );
  router.all(
    `${PROMETHEUS_API_PREFIX}/api/v1/status/buildinfo`,
    methods,
    answer(async () =>
      metadata
        ? {
            status: 'success',
            data: { version: EMBEDDED_PROMETHEUS_VERSION, revision: `data-platform-gateway ${options.gatewayVersion}`, branch: 'embedded', buildUser: '', buildDate: '', goVersion: '' },
          }
        : prometheus.get('/api/v1/status/buildinfo', {}),
    ),
  );
  router.use(PROMETHEUS_API_PREFIX, (req: Request, res: Response) =>
    prometheusFailure(
      res,
      404,
      'not_found',
      `${req.originalUrl.split('?')[0]} is not served: the gateway answers /api/v1/query, query_range, series, labels, label/<name>/values, metadata and status/buildinfo`,
    ),
  );
  // A body the form parser refused (too large, a bad charset) is the caller's fault.
  router.use(PROMETHEUS_API_PREFIX, (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const { status, type } = (error ?? {}) as { status?: unknown; type?: unknown };
    if (typeof status !== 'number' || status >= 500) return next(error);
    prometheusFailure(res, status, 'bad_data', type === 'entity.too.large' ? `the form body is larger than ${options.bodyLimitBytes} bytes (REQUEST_BODY_LIMIT)` : (error as Error).message);
  });
  return router;
}

/** GET and POST, as Prometheus serves its read endpoints. */
function methods(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'GET' || req.method === 'POST' || req.method === 'HEAD') return next();
  res.setHeader('allow', 'GET, POST');
  prometheusFailure(res, 405, 'bad_data', `${req.method} is not allowed here; use GET or POST`);
}

/** The Prometheus API door. */
export function prometheusTransport(options: PrometheusHttpOptions): Transport {
  return { name: 'prometheus', apiPaths: [PROMETHEUS_API_PREFIX], routes: [prometheusApiRouter(options)], paths: [PROMETHEUS_API_PREFIX] };
}
