// The services and the platform adapters they run on, made once at start-up from the configuration
// (src/server.ts, the composition root, hands them to the doors). Each outside system is chosen
// here: its at-scale adapter when configured, else the embedded default.
import { linkedDatasetList } from './graphql/lists.js';
import { CONNECTOR_KEY_BYTES, createConnectorSecrets, createDatasetService, createDatasetStore, type DatasetVersionList } from './modules/datasets/index.js';
import { createDataAccessService, createMetricsQueries } from './modules/data-access/index.js';
import { type PrometheusApi } from './platform/metrics-store/prometheus-read-api.js';
import { keptSecret, memoisedKey } from './platform/secrets/kept-secret.js';
import { createAlertManagers } from './platform/alert-manager/alert-manager.js';
import { createNotifier } from './platform/notifier/notifier.js';
import { createManagerNames } from './modules/alerts/index.js';
import { MetricsStore } from './platform/metrics-store/store.js';
import { createEmbeddedPrometheusApi, createRemotePrometheusApi } from './platform/metrics-store/prometheus-read-api.js';
import type { Config } from './config.js';
import { type Services } from './context.js';
import { AUDIT_LIST_MAX, createAuditService, createAuditStore } from './modules/audit/index.js';
import { GatewayMetrics } from './telemetry/metrics.js';
import type { Logger } from './logger.js';
import { type ManagerNames, createAlertService, createAlertStore } from './modules/alerts/index.js';
import { createAlertRuleService, createAlertRuleStore } from './modules/alert-rules/index.js';
import { createConnectorService, createConnectorStore } from './modules/connectors/index.js';
import { PublishedCache } from './platform/cache/published-cache.js';
import { createFileService } from './modules/files/index.js';
import { IngestionCounters, createIngestionCounterStore, SYSTEM_EVENTS_DATASOURCE, SystemEventsRecorder, createIngestionService, ingestionProcessing } from './modules/ingestion/index.js';
import { createHealthService, createMetricsService } from './modules/metrics/index.js';
import { piiRules, createPiiService } from './modules/pii/index.js';
import { createSeriesService } from './modules/series/index.js';
import { CHANGE_STREAM_FIELDS, createChangeLogStores, LiveEvents } from './modules/live/index.js';
import { createSchemaInferenceService } from './modules/schema-inference/index.js';
import { createJobService, createJobStore } from './modules/jobs/index.js';
import { createTemplateRunner, createTemplateService, createTemplateStore } from './modules/templates/index.js';
import { createSearchService, createSearchStore } from './modules/search/index.js';
import { createLineageService, createLineageStore } from './modules/lineage/index.js';
import { createHistoryService, createHistoryStore } from './modules/history/index.js';
import type { TemplateRecord } from './modules/templates/index.js';
import { type AlertManagers } from './platform/alert-manager/alert-manager.js';
import { type Database } from './platform/database/database.js';
import { EmbeddedEventStore } from './platform/event-bus/embedded-store.js';
import type { EventBus } from './platform/event-bus/event-bus.js';
import { createMetricsSource } from './platform/metrics-source/metrics-source.js';
import { createPiiDetector } from './platform/pii-detector/pii-detector.js';
import { type Notifier } from './platform/notifier/notifier.js';
import { EmbeddedObjectStore } from './platform/object-store/embedded.js';
import type { ObjectStore } from './platform/object-store/object-store.js';
import { DruidQueryEngine } from './platform/query-engine/druid.js';
import { EmbeddedQueryEngine } from './platform/query-engine/embedded.js';
import type { QueryEngine } from './platform/query-engine/query-engine.js';

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
  // Its views are made through the store's pool: inside a mutation, on the operation's own connection and
  // in its transaction (a view appears with the status that needs it; a second connection per
  // transition could wait for the pool forever when every connection holds a transition).
  return new EmbeddedQueryEngine(database.storePool, { statementTimeoutMs: config.queryEngine.statementTimeoutMs, maxRows: config.queryEngine.maxRows, readerPool: database.queryPool });
}

async function createEventBus(config: Config, database: Database, logger: Logger): Promise<EventBus> {
  const kafka = config.ingestion.kafka;
  if (!kafka) return new EmbeddedEventStore(database.pool, ingestionProcessing);
  const { createKafkaProbe, createKafkaProducer, KafkaEventBus } = await import('./platform/event-bus/kafka.js');
  return new KafkaEventBus(createKafkaProducer(kafka), kafka, logger, createKafkaProbe(kafka));
}

export function createServices(
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
  const datasets = createDatasetService(
    createDatasetStore(database.prisma, database.storePool, published.records<DatasetVersionList>('datasets', PUBLISHED_RECORD_ENTRIES), linkedDatasetList),
    platform.queryEngine,
    {
      listMax: config.datasets.listMax,
      connectorSecrets,
    },
  );
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
    createAlertStore(database.prisma, database.storePool, (id) => published.announce({ table: 'notification_channels', key: id })),
    platform.alertManagers,
    platform.managerNames,
    platform.notifier,
    logger,
    { listMax: config.alerting.listMax },
  );
  const liveEvents = new LiveEvents(database.changes, {
    datasetVersions: (id) => datasets.createLoader().load(id),
    versionStamps: (limit) => datasets.versionStamps(limit),
    series,
    changeLogs: { stores: createChangeLogStores(database.pool, config.live.changeLogRetentionMs / 3_600_000) },
    onLiveReading: platform.metrics.liveQueryReadingObserver(),
    logger,
  });
  platform.metrics.watchChangeStreams(() => CHANGE_STREAM_FIELDS.map((stream) => ({ stream, ...liveEvents.changeLogTail(stream) })));
  return {
    templates: createTemplateService(createTemplateStore(database.prisma, database.storePool, published.records<TemplateRecord | null>('query_templates', PUBLISHED_RECORD_ENTRIES)), {
      listMax: config.templates.listMax,
      runner: createTemplateRunner(datasets, platform.queryEngine, { maxRows: config.queryEngine.maxRows }),
    }),
    datasets,
    dataAccess,
    metricsQueries: createMetricsQueries(platform.prometheus, datasets, platform.queryEngine, (dataset, query) => dataAccess.query(dataset, query, null, { maxRangeDays: null })),
    schemaInference: createSchemaInferenceService(),
    jobs: createJobService(createJobStore(database.pool), files, database.changes, { ...config.jobs, logger }),
    ingestion: createIngestionService(datasets, platform.eventBus, ingestionCounters, { maxBatch: config.ingestion.maxBatch, systemEvents: platform.systemEvents }),
    files,
    connectors: createConnectorService(
      createConnectorStore(database.prisma, database.storePool, () => published.announce({ table: 'connector_registry', key: '*' })),
      files,
      config.connectors,
    ),
    alerts,
    alertRules: createAlertRuleService(
      createAlertRuleStore(database.prisma, database.storePool, (id) => published.announce({ table: 'alert_rules', key: id })),
      alerts,
      platform.alertManagers,
      {
        listMax: config.alerting.listMax,
        resolveManager: (name) => platform.managerNames.resolveManager(name, 'rule'),
      },
    ),
    audit: createAuditService(createAuditStore(database.prisma, database.storePool), { listMax: AUDIT_LIST_MAX, operations: database.operations }),
    pii: createPiiService(createPiiDetector(config.pii, piiRules), config.pii),
    metrics,
    health: createHealthService({ pingDatabase: () => database.ping(), eventBus: platform.eventBus, queryEngine: platform.queryEngine, datasets, metrics }),
    series,
    search: createSearchService(createSearchStore(database.pool)),
    lineage: createLineageService(createLineageStore(database.pool)),
    history: createHistoryService(createHistoryStore(database.pool)),
    live: {
      events: liveEvents,
      defaultEverySeconds: Math.max(1, config.metrics.sampleIntervalMs / 1000 || 15),
    },
  };
}

/** The systems outside the gateway that /readyz asks besides the database and the object store: Kafka and Druid, when configured. */
function readinessProbes(eventBus: EventBus, queryEngine: QueryEngine): Record<string, () => Promise<void>> {
  return {
    ...(eventBus.check ? { eventBus: () => eventBus.check!() } : {}),
    ...(queryEngine instanceof DruidQueryEngine ? { queryEngine: () => queryEngine.ping() } : {}),
  };
}

/**
 * The platform the services run on, each adapter chosen from the configuration and logged:
 * `gatewayUrl` is known once the server listens (embedded object store links need it).
 */
export async function createPlatform(config: Config, database: Database, logger: Logger, gatewayUrl: () => string, version: string) {
  const queryEngine = createQueryEngine(config, database);
  logger.info(`query engine: ${queryEngine.name}${queryEngine instanceof EmbeddedQueryEngine ? `; template queries run as ${database.queryRole}` : ''}`);
  const eventBus = await createEventBus(config, database, logger);
  logger.info(`event bus: ${eventBus.name}`);
  const objectStore = await createObjectStore(config, gatewayUrl);
  logger.info(`object store: ${objectStore.name}`);
  // Checked at once, so a wrong bucket, secret or endpoint shows in the first lines of the log rather
  // than at the first upload. A warning, not a refusal to start: the rest of the API does not need
  // the store, and a store that is down for a moment must not keep every copy from starting;
  // /readyz answers 503 naming the problem until the store answers.
  if (objectStore.check) {
    await objectStore.check().then(
      () => logger.info("object store: the bucket answers to the gateway's credentials"),
      (error: unknown) => logger.warn(`object store check failed: ${(error as Error).message}. File links and connector registrations fail, and /readyz answers 503, until it answers.`),
    );
  }
  // Kafka and Druid as the object store: a warning now, and /readyz answers 503 naming the reason
  // until they answer (a system down for a moment must not keep every copy from starting).
  const probes = readinessProbes(eventBus, queryEngine);
  const described = { eventBus: `event bus (${eventBus.name})`, queryEngine: `query engine (${queryEngine.name})` } as Record<string, string>;
  await Promise.all(
    Object.entries(probes).map(([name, check]) =>
      check().then(
        () => logger.info(`${described[name]}: answers`),
        (error: unknown) => logger.warn(`${described[name]} check failed: ${(error as Error).message}. /readyz answers 503 until it answers.`),
      ),
    ),
  );
  const alertManagers = createAlertManagers(config.alerting);
  const notifier = createNotifier(config.alerting);
  logger.info(`alert managers: ${[...alertManagers.values()].map((manager) => manager.description).join('; ')}; notifications: ${notifier.description}`);
  const managerNames = createManagerNames(config.alerting, alertManagers);
  for (const note of managerNames.notes) logger.info(note);
  const metrics = new GatewayMetrics({ version });
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
  return { queryEngine, eventBus, objectStore, probes, alertManagers, managerNames, notifier, metrics, metricsStore, prometheus, published, systemEvents };
}
