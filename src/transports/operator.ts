// What operators and browsers reach outside the API: health (/livez, /readyz), the metrics for
// Prometheus to scrape, and the embedded object store's links when no S3 is configured.
import type { Config } from '../config.js';
import { embeddedObjectStoreRouter } from '../http/embedded-object-store.js';
import { healthRouter } from '../http/health.js';
import { metricsRouter } from '../http/metrics-endpoint.js';
import type { Logger } from '../logger.js';
import type { Database } from '../platform/database/database.js';
import { EMBEDDED_LINK_PREFIX, EmbeddedObjectStore } from '../platform/object-store/embedded.js';
import type { ObjectStore } from '../platform/object-store/object-store.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { Transport } from './transport.js';

export interface OperatorTransportOptions {
  config: Config;
  database: Database;
  metrics: GatewayMetrics;
  objectStore: ObjectStore;
  logger: Logger;
  draining: () => boolean;
  /** Kafka and Druid, when configured (src/services.ts readinessProbes). */
  probes: Readonly<Record<string, () => Promise<void>>>;
}

export function operatorTransport({ config, database, metrics, objectStore, logger, draining, probes }: OperatorTransportOptions): Transport {
  const publicRoutes = [healthRouter(database, { draining, objectStore, probes }), metricsRouter(metrics, config.http.metricsToken === undefined ? {} : { token: config.http.metricsToken })];
  if (objectStore instanceof EmbeddedObjectStore) {
    publicRoutes.push(embeddedObjectStoreRouter(objectStore, logger, { corsOrigins: config.objectStore.kind === 'embedded' ? config.objectStore.corsOrigins : [] }));
  }
  return { name: 'operator', publicRoutes, paths: ['/healthz', '/readyz', '/metrics', EMBEDDED_LINK_PREFIX] };
}
