import os from 'node:os';
import { MetricsSampler } from './platform/metrics-store/sampler.js';
import { knownTableRows, readListTableSizes } from './platform/lists/list-query.js';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRestRouter, REST_PREFIXES, restErrorHandler, routeNotFound } from '../rest/router.js';
import { buildOpenApiDocument } from '../rest/openapi.js';
import { restEndpoints } from '../rest/endpoints.js';
import type { Config } from './config.js';
import { createContextFactory } from './context.js';
import { StartupError } from './errors.js';
import { buildSchema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS } from './graphql/schema.js';
import { readPlanner } from './graphql/published-reads.js';
import { NODE_READ_API_IDS } from './graphql/nodes.js';
import { fieldApiIds } from './auth/field-api-ids.js';
import { guardLinks, guardRootFields } from './auth/guard.js';
import { SharedRateLimiter } from './auth/shared-rate-limit.js';
import { loadPersistedOperations, persistedOnlyFor } from './graphql/persisted-operations.js';
import { answerClientErrors } from './http/client-errors.js';
import { crossOriginPolicy, useCrossOrigin } from './http/use-cross-origin.js';
import { withFastPath } from './http/fast-path.js';
import { KeptReads } from './http/kept-reads.js';
import { useAuth } from './http/use-auth.js';
import { graphiqlRouter } from './http/graphiql.js';
import { embeddedObjectStoreRouter } from './http/embedded-object-store.js';
import { healthRouter } from './http/health.js';
import { apiDocsRouter } from './http/api-docs.js';
import { metricsRouter } from './http/metrics-endpoint.js';
import { metricFamilies, PROMETHEUS_API_PREFIX, prometheusApiRouter } from './http/prometheus-api-router.js';
import { GRAFANA_RULES_PREFIX, grafanaRulesRouter } from './http/grafana-rules-router.js';
import { requestObserver, useObservability } from './http/use-observability.js';
import { withAuditTrail } from './modules/audit/index.js';
import { useRequestId } from './http/use-request-id.js';
import { useSecurityHeaders } from './http/use-security-headers.js';
import { useRequestTimeout } from './http/use-request-timeout.js';
import type { Logger } from './logger.js';
import { AlertEvaluator } from './modules/alert-rules/index.js';
import { ingestionFieldPermissions } from './modules/ingestion/index.js';
import { metricsFieldPermissions } from './modules/metrics/index.js';
import { openDatabase, type Database } from './platform/database/database.js';
import { EMBEDDED_LINK_PREFIX, EmbeddedObjectStore } from './platform/object-store/embedded.js';
import { createPlatform, createServices } from './services.js';
import { createAccessControl } from './auth/setup.js';
import { startLiveTransport } from './transports/live.js';
import { graphqlBodyErrorHandler, startGraphQLHttp } from './transports/graphql-http.js';
import { startBackgroundWork } from './background.js';
// Composition: database, services, one executable schema, and the HTTP transports around it.

export const GATEWAY_VERSION = '0.1.0';

export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  database: Database;
  /** Runs Live alert rules on its own tick; `cycle(atMs)` runs one cycle at a given time (tests inject time). */
  alertEvaluator: AlertEvaluator;
  /** Samples the gateway's metrics into the embedded store (absent with PROMETHEUS_URL); `sample(atMs)` takes one. */
  metricsSampler: MetricsSampler | undefined;
  /**
   * Turns /readyz to 503 at once and keeps serving for SHUTDOWN_DRAIN_SECONDS (a balancer stops
   * sending new requests meanwhile), then stops taking requests, lets running ones finish, and
   * closes the database (and the embedded server).
   */
  /** Open WebSocket connections, SSE streams and shared evaluations of subscriptions. */
  subscriptions: { stats(): { webSockets: number; streams: number; evaluations: number; started: number } };
  stop(): Promise<void>;
  /** True from the moment stop() is called. */
  readonly draining: boolean;
}

/** Most REST read URLs the fast path knows (each a few hundred bytes). */
const KEPT_READ_URLS = 20_000;
/** Largest GraphQL body the fast path reads ahead (a query and its variables; an ingest batch is far larger). */
const FAST_PATH_MAX_BODY_BYTES = 64 * 1024;
/** Largest REST POST read body the fast path reads ahead (a list's envelope: filters, sort, a page). */
const FAST_PATH_MAX_REST_BODY_BYTES = 16 * 1024;

/** Refuses a port another process holds before anything else starts (database, migrations). */
async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new StartupError(`port ${port} on ${host} is already in use (another gateway?): stop that process or set PORT to a free port`));
      else if (error.code === 'EACCES') reject(new StartupError(`port ${port} on ${host} needs privileges this user lacks: set PORT to a port above 1023`));
      else reject(error);
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export async function startGateway(config: Config, logger: Logger): Promise<Gateway> {
  await ensurePortFree(config.http.host, config.http.port);
  const database = await openDatabase(config.database, logger, config.scale.listenUrl ? { listenUrl: config.scale.listenUrl } : {});
  try {
    return await serve(config, logger, database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}

async function serve(config: Config, logger: Logger, database: Database): Promise<Gateway> {
  // Lists guard their counts by the tables' sizes: read them now so that no request waits for them.
  await readListTableSizes(database.prisma);
  // Known once the server listens (PORT=0 picks a port); embedded links are made only after that.
  let gatewayUrl = '';
  const platform = await createPlatform(config, database, logger, () => gatewayUrl, GATEWAY_VERSION);
  const { eventBus, objectStore, metrics, metricsStore, prometheus, published, systemEvents } = platform;
  const services = createServices(database, published, config, platform, logger);
  logger.info(`PII detector: ${services.pii.detectorName}; metrics source: ${services.metrics.sourceName}`);
  const seeded = await services.connectors.seedBuiltIns();
  if (seeded > 0) logger.info(`connector registry: ${seeded} built-in connectors added`);
  // Every mutation writes an audit record, over GraphQL and REST alike (both execute this schema).
  const schema = withAuditTrail(buildSchema(GATEWAY_VERSION));
  // Access control (src/auth): every root field is guarded by the API ids its module declares
  // (src/modules/<domain>/permissions.ts); REST entries pass the same check with their own ids.
  const apiIds = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEndpoints);
  const permissionGaps = [...apiIds.undeclared.map((coordinate) => `${coordinate} declares no API id`), ...apiIds.restMismatches];
  if (permissionGaps.length > 0) throw new Error(`root field permissions do not fit the schema or the REST table:\n  - ${permissionGaps.join('\n  - ')}`);
  guardRootFields(schema, apiIds.byField);
  // A record reached through a link is no more open than the root fields that read it (nodes.ts).
  guardLinks(schema, NODE_READ_API_IDS);
  const { rateLimiter, accessControl, authenticator } = createAccessControl(config, database, logger);
  const createContext = createContextFactory(services, logger, accessControl);
  const { file: persistedFile, requiredFor: persistedRequiredFor } = config.graphql.persistedOperations;
  const persistedOperations = loadPersistedOperations(schema, persistedFile);
  logger.info(`persisted operations: ${persistedOperations.size} on the allow list; required for ${persistedRequiredFor.length > 0 ? persistedRequiredFor.join(', ') : 'nobody'}`);

  const app = express();
  app.disable('x-powered-by');
  // requestTimeout: a client that stalls mid-request is answered 408 (client-errors.ts) once the
  // whole request has taken this long, instead of holding its connection until REQUEST_TIMEOUT_MS.
  // The fast path (src/http/fast-path.ts) answers kept reads in front of the app; it is set up below, once the app is.
  let handle: http.RequestListener = app;
  const httpServer = http.createServer(
    { requestTimeout: config.http.bodyTimeoutMs, headersTimeout: Math.min(60_000, config.http.bodyTimeoutMs), connectionsCheckingInterval: Math.min(1000, config.http.bodyTimeoutMs / 4) },
    (req, res) => handle(req, res),
  );
  // The contract's responses carry `Keep-Alive: timeout=5` (Node's header follows this setting).
  httpServer.keepAliveTimeout = 5_000;
  answerClientErrors(httpServer, { bodyTimeoutMs: config.http.bodyTimeoutMs });

  // A count is priced by the rows its list's table holds (the estimates read above), before it runs.
  const costOptions = { unboundedPageSize: largestListPage(config), tableRows: knownTableRows(database.prisma) };

  // Subscriptions (src/modules/live): WebSocket on the /graphql upgrade, SSE on /graphql/stream.
  const subscriptions = startLiveTransport({
    httpServer,
    schema,
    services,
    logger,
    metrics,
    accessControl,
    authenticator,
    apiIdsByField: apiIds.byField,
    persistedOperations,
    persistedRequiredFor,
    limits: { ...config.graphqlLimits, cost: costOptions },
    live: config.live,
  });

  // A kept answer holding health or counters is served only to a caller their own fields admit.
  const figuresApiIds = { DatasetHealth: metricsFieldPermissions['Query.datasetHealth']!, IngestionStats: ingestionFieldPermissions['Query.ingestionStats']! };
  const planOf = readPlanner(schema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS, { ...NODE_READ_API_IDS, ...figuresApiIds }, config.graphql.figuresMaxAgeMs);
  const graphqlHttp = await startGraphQLHttp({
    httpServer,
    schema,
    config,
    published,
    planOf,
    metrics,
    rateLimiter,
    accessControl,
    createContext,
    persistedOperations,
    costOptions,
  });

  const crossOrigin = { allowedOrigins: config.http.corsAllowedOrigins, loopbackHostsOnly: config.auth.mode === 'none', ownPolicyPrefixes: [EMBEDDED_LINK_PREFIX] };
  app.use(useRequestId());
  app.use(useSecurityHeaders());
  app.use(useCrossOrigin(crossOrigin));
  app.use(useObservability({ logger, metrics }));
  let draining = false;
  // While draining, answers ask clients to reconnect, which a balancer then sends to another copy.
  app.use((_req, res, next) => {
    if (draining) res.set('connection', 'close');
    next();
  });
  app.use(healthRouter(database, { draining: () => draining, objectStore }));
  app.use(metricsRouter(metrics, config.http.metricsToken === undefined ? {} : { token: config.http.metricsToken }));
  app.use(apiDocsRouter(buildOpenApiDocument(restEndpoints, { version: GATEWAY_VERSION })));
  if (objectStore instanceof EmbeddedObjectStore)
    app.use(embeddedObjectStoreRouter(objectStore, logger, { corsOrigins: config.objectStore.kind === 'embedded' ? config.objectStore.corsOrigins : [] }));
  if (config.graphql.graphiql) app.use(graphiqlRouter());
  // Event streams last as long as the subscription: mounted before the request timeout.
  app.use(subscriptions.sseRouter);
  const apiPaths = ['/graphql', ...REST_PREFIXES, PROMETHEUS_API_PREFIX, GRAFANA_RULES_PREFIX];
  // The timeout starts before authentication: a session or API-key lookup can wait on the database too.
  app.use(apiPaths, useRequestTimeout({ timeoutMs: config.http.requestTimeoutMs, logger }));
  app.use(apiPaths, useAuth({ authenticator }));
  app.use('/graphql', ...graphqlHttp.middleware);
  app.use(
    prometheusApiRouter({
      prometheus,
      accessControl,
      logger,
      gatewayVersion: GATEWAY_VERSION,
      metadata: metricsStore ? async () => metricFamilies(await metrics.snapshot()) : undefined,
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
  );
  app.use(grafanaRulesRouter({ alertRules: services.alertRules, accessControl, logger }));
  const keptReads = new KeptReads(KEPT_READ_URLS);
  const rest = createRestRouter({
    schema,
    endpoints: restEndpoints,
    createContext,
    logger,
    bodyLimitBytes: config.http.bodyLimitBytes,
    largeBodyLimitBytes: config.ingestion.bodyLimitBytes,
    uploadLimitBytes: config.connectors.uploadLimitBytes,
    jsonLimits: config.jsonLimits,
    publishedReads: { cache: published, planOf },
    keptReads,
  });
  app.use(rest);
  app.use(routeNotFound);
  app.use(graphqlBodyErrorHandler);
  app.use(restErrorHandler(logger));

  if (config.http.fastPath) {
    const persistedOnly = persistedOnlyFor(persistedRequiredFor);
    handle = withFastPath({
      normalPath: app,
      crossOrigin: crossOriginPolicy(crossOrigin),
      observe: requestObserver({ logger, metrics }),
      served: (transport) => metrics.fastPathAnswer(transport),
      authenticator,
      accessFor: (authentication, address) => accessControl.forRequest(authentication, address),
      draining: () => draining,
      restReads: keptReads,
      graphql: { keptAnswerFor: graphqlHttp.keptAnswerFor, persistedOnly },
      maxGraphQLBodyBytes: FAST_PATH_MAX_BODY_BYTES,
      maxRestBodyBytes: Math.min(FAST_PATH_MAX_REST_BODY_BYTES, config.http.bodyLimitBytes),
      handOverAfterMs: Math.min(1000, config.http.requestTimeoutMs),
    });
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  gatewayUrl = `http://${host}:${port}`;
  const background = startBackgroundWork({ config, database, logger, metrics, metricsStore, prometheus, services, systemEvents, instance: `${os.hostname()}:${port}` });
  let stopping: Promise<void> | undefined;
  return {
    url: gatewayUrl,
    database,
    alertEvaluator: background.alertEvaluator,
    metricsSampler: background.sampler,
    subscriptions: { stats: subscriptions.stats },
    get draining() {
      return draining;
    },
    stop() {
      stopping ??= (async () => {
        draining = true;
        if (config.scale.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.scale.drainMs));
        await subscriptions.close();
        services.live.events.close();
        await graphqlHttp.stop();
        await background.stop();
        await eventBus.close();
        await objectStore.close();
        if (rateLimiter instanceof SharedRateLimiter) rateLimiter.close();
        await database.close();
      })();
      return stopping;
    },
  };
}

/** The largest page any list serves, which a list field with `first: null` returns (costed as such). */
function largestListPage(config: Config): number {
  return Math.max(config.templates.listMax, config.datasets.listMax, config.connectors.listMax, config.alerting.listMax);
}
