// Liveness (the process answers) and readiness (the database really answers a query).
import express from 'express';
import type { Database } from '../platform/database/database.js';

export function healthRouter(database: Pick<Database, 'ping'>): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await database.ping();
      res.json({ status: 'ready', checks: { database: 'ok' } });
    } catch (error) {
      res.status(503).json({ status: 'unavailable', checks: { database: (error as Error).message || 'unreachable' } });
    }
  });
  return router;
}
