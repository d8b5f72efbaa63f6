// Liveness (the process answers) and readiness (the database really answers a query, the object
// store, when it is one outside the gateway, lists its bucket with the gateway's credentials, and
// Kafka and Druid, when configured, answer).
import express from 'express';
import type { Database } from '../platform/database/database.js';
import type { ObjectStore } from '../platform/object-store/object-store.js';

export interface HealthOptions {
  /** True once the gateway is stopping: it still answers, but a balancer should send it nothing new. */
  draining?: () => boolean;
  /** Checked too when it has a check (S3): a wrong bucket or secret makes the gateway unready. */
  objectStore?: ObjectStore;
  /** Other systems outside the gateway, by the name /readyz reports them under (eventBus, queryEngine): each rejects with the reason. */
  probes?: Readonly<Record<string, () => Promise<void>>>;
  /** How long one answer of the object store's check is reused, so frequent polling costs the store little. */
  checkCacheMs?: number;
}

/** Readiness is polled every few seconds by balancers and orchestrators. */
const CHECK_CACHE_MS = 5000;

/** `check` run at most once per `ttlMs` (callers meanwhile share the last answer or the one in flight). */
export function cachedCheck(check: () => Promise<void>, ttlMs: number, now: () => number = Date.now): () => Promise<string | undefined> {
  let last: { at: number; answer: Promise<string | undefined> } | undefined;
  return () => {
    if (last && now() - last.at < ttlMs) return last.answer;
    const answer = check().then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)) || 'failed',
    );
    last = { at: now(), answer };
    return answer;
  };
}

export function healthRouter(database: Pick<Database, 'ping'>, options: HealthOptions = {}): express.Router {
  const router = express.Router();
  const store = options.objectStore;
  const checkStore = store?.check ? cachedCheck(() => store.check!(), options.checkCacheMs ?? CHECK_CACHE_MS) : undefined;
  const probes = Object.entries(options.probes ?? {}).map(([name, check]) => [name, cachedCheck(check, options.checkCacheMs ?? CHECK_CACHE_MS)] as const);
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
    const [databaseProblem, storeProblem, ...probeProblems] = await Promise.all([
      database.ping().then(
        () => undefined,
        (error: unknown) => (error as Error).message || 'unreachable',
      ),
      checkStore?.(),
      ...probes.map(([, check]) => check()),
    ]);
    const checks = {
      database: databaseProblem ?? 'ok',
      ...(checkStore ? { objectStore: storeProblem ?? 'ok' } : {}),
      ...Object.fromEntries(probes.map(([name], index) => [name, probeProblems[index] ?? 'ok'])),
    };
    if (databaseProblem || storeProblem || probeProblems.some(Boolean)) res.status(503).json({ status: 'unavailable', checks });
    else res.json({ status: 'ready', checks });
  });
  return router;
}
