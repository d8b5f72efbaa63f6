// Failures in the shape of Prometheus's HTTP API ({status: "error", errorType, error}), which Grafana
// and promtool show as they are: for /prometheus and Grafana's rules path, from their doors
// (src/transports/prometheus.ts, grafana.ts) and from the request timeout in front of them.
import type { Response } from 'express';
import type { GatewayError } from '../errors.js';

export const PROMETHEUS_API_PREFIX = '/prometheus';

export const GRAFANA_RULES_PREFIX = '/api/prometheus/grafana';

/** Prometheus's failure body; `errorType` follows its names (bad_data, unavailable, internal, ...). */
export function prometheusFailure(res: Response, status: number, errorType: string, message: string): void {
  if (res.headersSent) return;
  res.status(status).json({ status: 'error', errorType, error: message });
}

/** A gateway failure (no credentials, no permission, too many calls, a timeout) in Prometheus's shape. */
export function sendGatewayFailure(res: Response, error: GatewayError): void {
  if (error.headers) res.set(error.headers);
  res.locals.errorCode = error.code;
  prometheusFailure(res, error.httpStatus, error.kind.toLowerCase(), error.message);
}
