// GET /metrics: the Prometheus exposition of this gateway (see src/telemetry/metrics.ts). Keep it
// internal (scraped over the cluster network, not published through the public ingress).
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GatewayMetrics } from '../telemetry/metrics.js';

export function metricsRouter(metrics: GatewayMetrics): express.Router {
  const router = express.Router();
  router.get('/metrics', (_req: Request, res: Response, next: NextFunction) => {
    metrics.render().then((text) => {
      res.setHeader('content-type', metrics.contentType());
      res.setHeader('cache-control', 'no-store');
      res.send(text);
    }, next);
  });
  return router;
}
