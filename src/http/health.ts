// Liveness (the process answers) and readiness (the database really answers a query).
import express from 'express';
import type { Database } from '../platform/database/database.js';

export interface HealthOptions {
  /** True once the gateway is stopping: it still answers, but a balancer should send it nothing new. */
  draining?: () => boolean;
}

export function healthRouter(database: Pick<Database, 'ping'>, options: HealthOptions = {}): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (options.draining?.()) {
      res.locals.expectedUnavailable = true;
      res
        .status(503)
        .set('connection', 'close')
        .json({ status: 'draining', checks: { shutdown: 'stopping: finishing requests in flight' } });
      return;
    }
    try {
      await database.ping();
      res.json({ status: 'ready', checks: { database: 'ok' } });
    } catch (error) {
      res.status(503).json({ status: 'unavailable', checks: { database: (error as Error).message || 'unreachable' } });
    }
  });
  return router;
}
