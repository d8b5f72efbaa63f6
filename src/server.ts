import os from 'node:os';
// Composition: database, services, one executable schema, and the HTTP transports around it.
import { CONNECTOR_KEY_BYTES, createConnectorSecrets, createDatasetService, createDatasetStore, type DatasetVersionList } from './modules/datasets/index.js';
import { createDataAccessService, createMetricsQueries } from './modules/data-access/index.js';
import { createEmbeddedPrometheusApi, createRemotePrometheusApi, type PrometheusApi } from './platform/metrics-store/prometheus-read-api.js';
import { MetricsSampler } from './platform/metrics-store/sampler.js';
import { SamplerLease } from './platform/metrics-store/sampler-lease.js';
import { knownTableRows, readListTableSizes } from './platform/lists/list-query.js';
import { MetricsStore } from './platform/metrics-store/store.js';
import { keptSecret, memoisedKey } from './platform/secrets/kept-secret.js';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { createRestRouter, REST_PREFIXES, restErrorHandler, routeNotFound } from '../rest/router.js';
import { buildOpenApiDocument } from '../rest/openapi.js';
import { restEndpoints } from '../rest/endpoints.js';
import type { Config } from './config.js';
import { createContextFactory, type GatewayContext, requestAccessFactory, type Services } from './context.js';
import { StartupError } from './errors.js';
import { formatGraphQLError, reportUnexpectedError } from './graphql/errors.js';
import { buildSchema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS } from './graphql/schema.js';
import { readPlanner } from './graphql/published-reads.js';
import { NODE_READ_API_IDS } from './graphql/nodes.js';
import { AccessControl, type Authentication } from './auth/access.js';
import { createAuthenticator } from './auth/authenticate.js';
import { fieldApiIds } from './auth/field-api-ids.js';
import { guardLinks, guardRootFields } from './auth/guard.js';
import { introspectionNeedsCaller } from './auth/introspection.js';
import { loadPolicy } from './auth/policy.js';
import { RateLimiter } from './auth/rate-limit.js';
import { SharedRateLimiter } from './auth/shared-rate-limit.js';
import { aliasLimitRule, costLimitPlugin, depthLimitRule, jsonLimitsPlugin, limitBatch } from './graphql/limits.js';
import { loadPersistedOperations, persistedOnlyFor, persistedOperationsPlugin } from './graphql/persisted-operations.js';
import { publishedResults } from './graphql/published-results.js';
import { answerClientErrors } from './http/client-errors.js';
import { limitAnonymousGraphQL } from './http/limit-anonymous.js';
import { crossOriginPolicy, useCrossOrigin } from './http/use-cross-origin.js';
import { withFastPath } from './http/fast-path.js';
import { unlessParsedAhead } from './http/body-read-ahead.js';
import { writeKeptAnswer } from './http/kept-answer.js';
import { KeptReads } from './http/kept-reads.js';
import { useAuth } from './http/use-auth.js';
import { graphiqlRouter } from './http/graphiql.js';
import { embeddedObjectStoreRouter } from './http/embedded-object-store.js';
import { healthRouter } from './http/health.js';
import { apiDocsRouter } from './http/api-docs.js';
import { metricsRouter } from './http/metrics-endpoint.js';
import { metricFamilies, PROMETHEUS_API_PREFIX, prometheusApiRouter } from './http/prometheus-api-router.js';
import { GRAFANA_RULES_PREFIX, grafanaRulesRouter } from './http/grafana-rules-router.js';
import { graphqlObservabilityPlugin, requestObserver, subscriptionObserver, useObservability } from './http/use-observability.js';
import { AUDIT_LIST_MAX, createAuditService, createAuditStore, withAuditTrail } from './modules/audit/index.js';
import { GatewayMetrics } from './telemetry/metrics.js';
import { useGraphQLUpload } from './http/use-graphql-upload.js';
import { useRequestId } from './http/use-request-id.js';
import { useSecurityHeaders } from './http/use-security-headers.js';
import { useRequestTimeout } from './http/use-request-timeout.js';
import type { Logger } from './logger.js';
import { createManagerNames, type ManagerNames, createAlertService, createAlertStore } from './modules/alerts/index.js';
import { AlertEvaluator, createAlertRuleService, createAlertRuleStore } from './modules/alert-rules/index.js';
import { createConnectorService, createConnectorStore } from './modules/connectors/index.js';
import { PublishedCache } from './platform/cache/published-cache.js';
import { createFileService } from './modules/files/index.js';
import {
  INGESTION_SERIES,
  IngestionCounters,
  createIngestionCounterStore,
  SYSTEM_EVENTS_DATASOURCE,
  SystemEventsRecorder,
  createIngestionService,
  ingestionFieldPermissions,
  ingestionProcessing,
} from './modules/ingestion/index.js';
import { createHealthService, createMetricsService, metricsFieldPermissions } from './modules/metrics/index.js';
import { piiRules, createPiiService } from './modules/pii/index.js';
import { createSeriesService } from './modules/series/index.js';
import { LiveEvents, LiveGate, SharedSubscriptions, subscribedFields, sharedEvaluationContext } from './modules/live/index.js';
import { serveSubscriptions } from './http/use-subscriptions.js';
import { createSchemaInferenceService } from './modules/schema-inference/index.js';
import { createTemplateRunner, createTemplateService, createTemplateStore } from './modules/templates/index.js';
import { createSearchService, createSearchStore } from './modules/search/index.js';
import type { TemplateRecord } from './modules/templates/index.js';
import { createAlertManagers, type AlertManagers } from './platform/alert-manager/alert-manager.js';
import { openDatabase, type Database } from './platform/database/database.js';
import { EmbeddedEventStore } from './platform/event-bus/embedded-store.js';
import type { EventBus } from './platform/event-bus/event-bus.js';
import { createMetricsSource } from './platform/metrics-source/metrics-source.js';
import { createPiiDetector } from './platform/pii-detector/pii-detector.js';
import { createNotifier, type Notifier } from './platform/notifier/notifier.js';
import { EMBEDDED_LINK_PREFIX, EmbeddedObjectStore } from './platform/object-store/embedded.js';
import type { ObjectStore } from './platform/object-store/object-store.js';
import { DruidQueryEngine } from './platform/query-engine/druid.js';
import { EmbeddedQueryEngine } from './platform/query-engine/embedded.js';
import type { QueryEngine } from './platform/query-engine/query-engine.js';

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

function createServices(
  database: Database,
  published: PublishedCache,
  config: Config,
  platform: {
    queryEngine: QueryEngine;
    eventBus: EventBus;
    objectStore: ObjectStore;
    alertManagers: AlertManagers;
    managerNames: ManagerNames;
    notifier: Notifier;
    metrics: GatewayMetrics;
    prometheus: PrometheusApi;
    systemEvents: SystemEventsRecorder | undefined;
  },
  logger: Logger,
): Services {
  const files = createFileService(platform.objectStore, config.files);
  const connectorKey = config.datasets.connectorKey;
  const connectorSecrets = createConnectorSecrets(memoisedKey(async () => ('key' in connectorKey ? Buffer.from(connectorKey.key, 'hex') : keptSecret(connectorKey.keyFile, CONNECTOR_KEY_BYTES))));
  const datasets = createDatasetService(createDatasetStore(database.prisma, published.records<DatasetVersionList>('datasets', PUBLISHED_RECORD_ENTRIES)), platform.queryEngine, {
    listMax: config.datasets.listMax,
    connectorSecrets,
  });
  // Ingestion counts; the embedded metrics source reads them for the importance score.
  // The counters' writes are one statement at a time (concurrent calls share it), on a connection of
  // their own: on the main pool each ingest call waited for a connection behind other calls' inserts.
  const ingestionCounters = new IngestionCounters(createIngestionCounterStore(database.pool, { writePool: database.openSidePool(1) }), logger, platform.metrics.ingestion);
  const metrics = createMetricsService(datasets, createMetricsSource(config.metrics, database.pool, ingestionCounters), { ...config.metrics, logger });
  const dataAccess = createDataAccessService(datasets, platform.queryEngine, {
    maxRows: config.queryEngine.maxRows,
    exhaust: { pool: database.pool, objectStore: platform.objectStore, expirySeconds: config.files.urlExpirySeconds },
    systemEvents: platform.systemEvents ?? { datasource: { name: SYSTEM_EVENTS_DATASOURCE, columns: new Set() }, flush: async () => undefined },
  });
  const series = createSeriesService(platform.prometheus, { findAlias: async (name) => (await alerts.findMetricAlias(name))?.metric });
  const alerts = createAlertService(
    createAlertStore(database.prisma, (id) => published.announce({ table: 'notification_channels', key: id })),
    platform.alertManagers,
    platform.managerNames,
    platform.notifier,
    logger,
    { listMax: config.alerting.listMax },
  );
  return {
    templates: createTemplateService(createTemplateStore(database.prisma, published.records<TemplateRecord | null>('query_templates', PUBLISHED_RECORD_ENTRIES)), {
      listMax: config.templates.listMax,
      runner: createTemplateRunner(datasets, platform.queryEngine, { maxRows: config.queryEngine.maxRows }),
    }),
    datasets,
    dataAccess,
    metricsQueries: createMetricsQueries(platform.prometheus, datasets, platform.queryEngine, (dataset, query) => dataAccess.query(dataset, query)),
    schemaInference: createSchemaInferenceService(),
    ingestion: createIngestionService(datasets, platform.eventBus, ingestionCounters, { maxBatch: config.ingestion.maxBatch, systemEvents: platform.systemEvents }),
    files,
    connectors: createConnectorService(
      createConnectorStore(database.prisma, () => published.announce({ table: 'connector_registry', key: '*' })),
      files,
      config.connectors,
    ),
    alerts,
    alertRules: createAlertRuleService(
      createAlertRuleStore(database.prisma, (id) => published.announce({ table: 'alert_rules', key: id })),
      alerts,
      platform.alertManagers,
      {
        listMax: config.alerting.listMax,
        resolveManager: (name) => platform.managerNames.resolveManager(name, 'rule'),
      },
    ),
    audit: createAuditService(createAuditStore(database.prisma), { listMax: AUDIT_LIST_MAX }),
    pii: createPiiService(createPiiDetector(config.pii, piiRules), config.pii),
    metrics,
    health: createHealthService({ pingDatabase: () => database.ping(), eventBus: platform.eventBus, queryEngine: platform.queryEngine, datasets, metrics }),
    series,
    search: createSearchService(createSearchStore(database.pool)),
    live: {
      events: new LiveEvents(database.changes, { datasetVersions: (id) => datasets.createLoader().load(id), versionStamps: (limit) => datasets.versionStamps(limit), series, logger }),
      defaultEverySeconds: Math.max(1, config.metrics.sampleIntervalMs / 1000 || 15),
    },
  };
}

/** Most REST read URLs the fast path knows (each a few hundred bytes). */
const KEPT_READ_URLS = 20_000;
/** Largest GraphQL body the fast path reads ahead (a query and its variables; an ingest batch is far larger). */
const FAST_PATH_MAX_BODY_BYTES = 64 * 1024;
/** Largest REST POST read body the fast path reads ahead (a list's envelope: filters, sort, a page). */
const FAST_PATH_MAX_REST_BODY_BYTES = 16 * 1024;

/** Most ids each published-record cache keeps (a few KiB each: 10,000 datasets stay well under 100 MiB). */
const PUBLISHED_RECORD_ENTRIES = 10_000;

// The S3 and Kafka clients load only when configured: on the embedded defaults they would cost the
// process some 40 MiB of memory for code it never runs.

/** S3 when a bucket is configured; otherwise the embedded store, whose links need the gateway's URL. */
async function createObjectStore(config: Config, gatewayUrl: () => string): Promise<ObjectStore> {
  const settings = config.objectStore;
  if (settings.kind === 's3') {
    const { S3ObjectStore } = await import('./platform/object-store/s3.js');
    return new S3ObjectStore(settings);
  }
  const publicUrl = settings.publicUrl;
  return new EmbeddedObjectStore({ ...settings, baseUrl: publicUrl ? () => publicUrl : gatewayUrl });
}

function createQueryEngine(config: Config, database: Database): QueryEngine {
  const druid = config.queryEngine.druid;
  if (druid) return new DruidQueryEngine({ ...druid, kafkaBrokers: config.ingestion.kafka?.brokers });
  return new EmbeddedQueryEngine(database.pool, { statementTimeoutMs: config.queryEngine.statementTimeoutMs, maxRows: config.queryEngine.maxRows, readerPool: database.queryPool });
}

async function createEventBus(config: Config, database: Database, logger: Logger): Promise<EventBus> {
  const kafka = config.ingestion.kafka;
  if (!kafka) return new EmbeddedEventStore(database.pool, ingestionProcessing);
  const { createKafkaProducer, KafkaEventBus } = await import('./platform/event-bus/kafka.js');
  return new KafkaEventBus(createKafkaProducer(kafka), kafka, logger);
}

/** Logs the errors formatGraphQLError masks, with the request id. */
const logUnexpectedErrors: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) reportUnexpectedError(contextValue.logger, error);
      },
    };
  },
};

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
  const queryEngine = createQueryEngine(config, database);
  logger.info(`query engine: ${queryEngine.name}${queryEngine instanceof EmbeddedQueryEngine ? `; template queries run as ${database.queryRole}` : ''}`);
  const eventBus = await createEventBus(config, database, logger);
  logger.info(`event bus: ${eventBus.name}`);
  // Known once the server listens (PORT=0 picks a port); embedded links are made only after that.
  let gatewayUrl = '';
  const objectStore = await createObjectStore(config, () => gatewayUrl);
  logger.info(`object store: ${objectStore.name}`);
  const alertManagers = createAlertManagers(config.alerting);
  const notifier = createNotifier(config.alerting);
  logger.info(`alert managers: ${[...alertManagers.values()].map((manager) => manager.description).join('; ')}; notifications: ${notifier.description}`);
  const managerNames = createManagerNames(config.alerting, alertManagers);
  for (const note of managerNames.notes) logger.info(note);
  const metrics = new GatewayMetrics({ version: GATEWAY_VERSION });
  metrics.watchDatabasePool(database.pool);
  metrics.watchEventBus(eventBus);
  // The console's dashboards read Prometheus's API: a real Prometheus when configured, else the
  // embedded store this gateway samples its own metrics into (started once the port is known).
  const metricsStore = config.metrics.prometheus ? undefined : new MetricsStore(database.pool, { chunkCacheBytes: config.metrics.chunkCacheBytes });
  const prometheus = config.metrics.prometheus ? createRemotePrometheusApi(config.metrics.prometheus) : createEmbeddedPrometheusApi(metricsStore!, { retentionMs: config.metrics.retentionMs });
  const published = new PublishedCache(database.changes);
  // The platform's processing telemetry (system-events): written here when this gateway processes
  // events itself and answers queries itself; with DRUID_URL, Druid's own system-events is read.
  const systemEvents =
    eventBus instanceof EmbeddedEventStore && queryEngine instanceof EmbeddedQueryEngine ? new SystemEventsRecorder(database.pool, { retentionMs: config.metrics.retentionMs, logger }) : undefined;
  const services = createServices(database, published, config, { queryEngine, eventBus, objectStore, alertManagers, managerNames, notifier, metrics, prometheus, systemEvents }, logger);
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
  const policy = loadPolicy(config.auth.permissionsFile);
  const rateLimiter = config.scale.rateLimitStore === 'postgres' ? new SharedRateLimiter(database.pool, config.rateLimits, logger) : new RateLimiter(config.rateLimits);
  logger.info(`rate limits: ${describeRateLimits(config)}`);
  const accessControl = new AccessControl(policy, rateLimiter, { costPerToken: config.graphqlLimits.costPerToken });
  const authenticator = createAuthenticator(config.auth, database, logger, config.http.host);
  const jwt = config.auth.jwt;
  if (jwt && (!jwt.issuer || !jwt.audience)) {
    logger.warn(
      `authentication: JWT ${[!jwt.issuer && 'issuer (iss)', !jwt.audience && 'audience (aud)'].filter(Boolean).join(' and ')} not checked (JWT_VERIFY_ISSUER/JWT_VERIFY_AUDIENCE=false): any token signed with the configured key is accepted, whoever it was issued for`,
    );
  }
  logger.info(
    `authentication: ${config.auth.mode}${config.auth.mode === 'none' ? ' (every caller is SYSTEM; loopback only)' : ' (+ API keys)'}; roles from ${config.auth.permissionsFile ?? 'config/permissions.json'}`,
  );
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
  // Subscriptions' errors are shaped as HTTP's, and an unexpected one is logged as Apollo's plugin logs it.
  const formatLiveError = (formatted: GraphQLFormattedError, error: GraphQLError): GraphQLFormattedError => {
    reportUnexpectedError(logger, error);
    return formatGraphQLError(formatted, error);
  };
  // A shared evaluation runs with its subscribers' access (one access key), without spending their tokens.
  const evaluationContext = createContextFactory(services, logger, accessControl.withoutRateLimits());
  const subscriptions = serveSubscriptions({
    httpServer,
    schema,
    authenticator,
    accessFor: (authentication, address) => accessControl.forRequest(authentication, address),
    evaluationAccess: ({ caller }, address) => ({ key: accessControl.accessKeyOf(caller), context: () => sharedEvaluationContext((requestId) => evaluationContext(requestId, { caller }, address)) }),
    gate: new LiveGate({
      schema,
      apiIdsByField: apiIds.byField,
      persisted: persistedOperations,
      persistedRequired: persistedOnlyFor(persistedRequiredFor),
      limits: { ...config.graphqlLimits, cost: costOptions },
      maxPerConnection: config.live.maxPerConnection,
      maxPerCaller: config.live.maxPerCaller,
    }),
    shared: new SharedSubscriptions({
      schema,
      formatError: formatLiveError,
      startsWithSnapshot: (document) => subscribedFields(document).includes('metricSeries'),
    }),
    queueCapacity: config.live.queueCapacity,
    keepAliveMs: config.live.keepAliveMs,
    formatError: formatLiveError,
    logger,
    observe: subscriptionObserver({ logger, metrics }),
    metrics,
  });

  // A kept answer holding health or counters is served only to a caller their own fields admit.
  const figuresApiIds = { DatasetHealth: metricsFieldPermissions['Query.datasetHealth']!, IngestionStats: ingestionFieldPermissions['Query.ingestionStats']! };
  const planOf = readPlanner(schema, PUBLISHED_READS, ROOT_FIELD_PERMISSIONS, { ...NODE_READ_API_IDS, ...figuresApiIds }, config.graphql.figuresMaxAgeMs);
  const keptResults = publishedResults<GatewayContext>({ cache: published, planOf, maxEntries: 2_000, writeAnswer: writeKeptAnswer });
  const accessFor = requestAccessFactory(accessControl);
  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: config.graphql.introspection,
    csrfPrevention: true,
    parseOptions: { maxTokens: config.graphqlLimits.maxTokens },
    validationRules: [depthLimitRule(config.graphqlLimits.maxDepth), aliasLimitRule(config.graphqlLimits.maxAliases)],
    allowBatchedHttpRequests: config.graphqlLimits.maxBatch > 1,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      logUnexpectedErrors,
      graphqlObservabilityPlugin(metrics),
      costLimitPlugin(config.graphqlLimits.maxCost, costOptions),
      jsonLimitsPlugin(config.jsonLimits),
      introspectionNeedsCaller(),
      persistedOperationsPlugin(persistedOperations, persistedRequiredFor),
      keptResults.plugin,
    ],
  });
  await apollo.start();

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
  app.use(healthRouter(database, { draining: () => draining }));
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
  app.use(
    '/graphql',
    limitAnonymousGraphQL({ limiter: rateLimiter }),
    useGraphQLUpload({ maxFileBytes: config.connectors.uploadLimitBytes }),
    // GraphQL carries ingest batches too, so it takes bodies up to the larger of the two limits; a
    // body the fast path parsed ahead is not parsed again.
    unlessParsedAhead(express.json({ limit: Math.max(config.http.bodyLimitBytes, config.ingestion.bodyLimitBytes) })),
    limitBatch(config.graphqlLimits.maxBatch),
    keptResults.keptAnswers((req, res) => accessFor(res.locals.auth as Authentication | undefined, req.ip), persistedOnlyFor(persistedRequiredFor)),
    expressMiddleware(apollo, { context: async ({ req, res }) => createContext(res.locals.requestId as string, res.locals.auth as Authentication | undefined, req.ip) }),
  );
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
      graphql: { keptAnswerFor: keptResults.keptAnswerFor, persistedOnly },
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
  // The sampler exists whenever the store does (tests sample on demand); it runs on its own when an interval is set.
  const instance = `${os.hostname()}:${port}`;
  // One gateway per database writes the shared series (the ingestion counters), the holder of a lease.
  const samplerLease = metricsStore ? new SamplerLease({ url: database.sessionUrl, instance, logger }) : undefined;
  const sampler =
    metricsStore && samplerLease
      ? new MetricsSampler(metricsStore, () => metrics.snapshot(), {
          intervalMs: config.metrics.sampleIntervalMs,
          retentionMs: config.metrics.retentionMs,
          instance,
          logger,
          shared: { lease: samplerLease, names: INGESTION_SERIES, snapshot: () => services.ingestion.sharedSeries(), written: () => metrics.sharedSamplingWritten() },
        })
      : undefined;
  const sampling = sampler !== undefined && config.metrics.sampleIntervalMs > 0;
  if (sampling) sampler.start();
  // Written out on its own timer once the gateway serves (a start-up that fails leaves no timer behind).
  systemEvents?.start();
  logger.info(
    `dashboard metrics: ${prometheus.name}${sampling ? `, sampled every ${config.metrics.sampleIntervalMs / 1000} s, kept ${config.metrics.retentionMs / 86_400_000} days` : metricsStore ? ' (sampling off: METRICS_SAMPLE_INTERVAL_SECONDS=0)' : ''}`,
  );
  const alertEvaluator = new AlertEvaluator(database.pool, prometheus, services.alerts, {
    tickMs: config.alerting.evaluationTickMs,
    repeatIntervalMs: config.alerting.repeatIntervalMs,
    logger,
    evaluated: () => metrics.alertRuleEvaluated(),
  });
  alertEvaluator.start();
  logger.info(
    config.alerting.evaluationTickMs > 0
      ? `alert rules: Live rules of the embedded and alertmanager managers evaluated here (looking every ${config.alerting.evaluationTickMs / 1000} s) against the ${prometheus.name}; a rule that keeps firing notifies again every ${config.alerting.repeatIntervalMs / 60_000} min`
      : 'alert rules: the embedded evaluator is off on this gateway (ALERT_EVALUATION_TICK_SECONDS=0)',
  );

  let stopping: Promise<void> | undefined;
  return {
    url: gatewayUrl,
    database,
    alertEvaluator,
    metricsSampler: sampler,
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
        await apollo.stop();
        await alertEvaluator.stop();
        await systemEvents?.stop();
        if (sampling) await sampler.stop();
        await samplerLease?.release();
        await eventBus.close();
        await objectStore.close();
        if (rateLimiter instanceof SharedRateLimiter) rateLimiter.close();
        await database.close();
      })();
      return stopping;
    },
  };
}

/**
 * A /graphql body that cannot be read (not JSON, too large, an unsupported charset or content
 * encoding, a compressed body that does not decompress) gets a GraphQL-shaped error, not an HTML
 * page nor the REST envelope.
 */
function graphqlBodyErrorHandler(error: unknown, req: Request, res: Response, next: NextFunction) {
  const { type, status, expose } = (error ?? {}) as { type?: unknown; status?: unknown; expose?: unknown };
  const clientError = typeof status === 'number' && status >= 400 && status < 500 && expose !== false;
  if (!req.path.startsWith('/graphql') || (typeof type !== 'string' && !clientError) || res.headersSent) return next(error);
  const detail = (error as Error).message;
  const message =
    type === 'entity.too.large'
      ? 'the request body is too large'
      : type === 'entity.parse.failed'
        ? `the request body is not valid JSON: ${detail}`
        : typeof type === 'string'
          ? detail
          : `the request body could not be read: ${detail}`;
  res.status(typeof status === 'number' ? status : 400).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
}

function describeRateLimits(config: Config): string {
  const { general, ingest } = config.rateLimits;
  const budget = (settings: { perSecond: number; burst: number }) => (settings.perSecond > 0 ? `${settings.perSecond}/s (burst ${settings.burst})` : 'off');
  const where = config.scale.rateLimitStore === 'postgres' ? 'kept in PostgreSQL, one budget per caller for every copy on this database' : 'kept in this process';
  return `${budget(general)} per caller, ingestion ${budget(ingest)}; ${where} (RATE_LIMIT_STORE=${config.scale.rateLimitStore})`;
}

/** The largest page any list serves, which a list field with `first: null` returns (costed as such). */
function largestListPage(config: Config): number {
  return Math.max(config.templates.listMax, config.datasets.listMax, config.connectors.listMax, config.alerting.listMax);
}
