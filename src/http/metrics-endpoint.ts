// GET /metrics: the Prometheus exposition of this gateway (see src/telemetry/metrics.ts). Keep it
// internal (scraped over the cluster network, not published through the public ingress); with
// METRICS_TOKEN set, a scraper must also send it as a bearer token (Prometheus: `authorization`).
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GatewayMetrics } from '../telemetry/metrics.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsRouter(metrics: GatewayMetrics, options: { token?: string } = {}): express.Router {
  const router = express.Router();
  // Compared as digests, in constant time, so the answer time says nothing about the token.
  const expected = options.token === undefined ? undefined : digest(`Bearer ${options.token}`);
  router.get('/metrics', (req: Request, res: Response, next: NextFunction) => {
    if (expected && !timingSafeEqual(digest(req.get('authorization') ?? ''), expected)) {
      res.status(401).setHeader('www-authenticate', 'Bearer realm="metrics"').type('text/plain').send('metrics need the bearer token set in METRICS_TOKEN\n');
      return;
    }
    metrics.render().then((text) => {
      res.setHeader('content-type', metrics.contentType());
      res.setHeader('cache-control', 'no-store');
      res.send(text);
    }, next);
  });
  return router;
}
