// The per-request context, built by one factory for GraphQL over HTTP and for REST calls alike, so
// both transports get the same caller, loaders and services.
import type DataLoader from 'dataloader';
import { unrestrictedAccess, type AccessControl, type Authentication, type Caller, type RequestAccess } from './auth/access.js';
import type { Logger } from './logger.js';
import type { AlertService } from './modules/alerts/service.js';
import type { AlertRuleService } from './modules/alert-rules/service.js';
import type { AuditService } from './modules/audit/service.js';
import type { ConnectorService } from './modules/connectors/service.js';
import type { DataAccessService } from './modules/data-access/service.js';
import type { DatasetService, DatasetVersions } from './modules/datasets/service.js';
import type { FileService } from './modules/files/service.js';
import type { SchemaInferenceService } from './modules/schema-inference/service.js';
import type { IngestionService } from './modules/ingestion/service.js';
import type { IngestionCounts } from './modules/ingestion/counters.js';
import type { DatasetHealth, HealthService } from './modules/metrics/health.js';
import type { ConnectorRecord } from './modules/connectors/types.js';
import type { ChannelRecord, SilenceRecord } from './modules/alerts/types.js';
import type { AlertNotificationRecord, AlertRuleView, RuleEvaluation } from './modules/alert-rules/types.js';
import type { MetricsService } from './modules/metrics/service.js';
import type { MetricsQueries } from './modules/data-access/metrics.js';
import type { PiiService } from './modules/pii/service.js';
import type { TemplateService } from './modules/templates/service.js';
import type { SeriesService } from './modules/series/series.js';
import type { SearchService } from './modules/search/service.js';
import type { LiveEvents } from './modules/live/events.js';
import type { Actor } from './auth/actor.js';
import type { TemplateRecord } from './modules/templates/types.js';

export interface Services {
  templates: TemplateService;
  datasets: DatasetService;
  dataAccess: DataAccessService;
  metricsQueries: MetricsQueries;
  schemaInference: SchemaInferenceService;
  ingestion: IngestionService;
  connectors: ConnectorService;
  files: FileService;
  alerts: AlertService;
  alertRules: AlertRuleService;
  audit: AuditService;
  pii: PiiService;
  metrics: MetricsService;
  health: HealthService;
  series: SeriesService;
  /** Search across datasets, templates, connectors, alert rules and channels. */
  search: SearchService;
  /** Live events for subscriptions, and the ingestion interval they default to. */
  live: { events: LiveEvents; defaultEverySeconds: number };
}

export interface GatewayContext {
  requestId: string;
  /** The REST API id when the call came over REST (set by the REST router); absent over GraphQL. */
  apiId?: string;
  /** Who is calling, as authenticated (AUTH_MODE=none: SYSTEM); undefined when anonymous. */
  caller?: Caller;
  /** The access check every root field passes (and the REST router before it reads a body). */
  access: RequestAccess;
  /** The caller's id as services record it (created_by, updated_by); `anonymous` without one. */
  actor: Actor;
  logger: Logger;
  services: Services;
  loaders: RequestLoaders;
}

/** Per-request batches of every lookup a list can fan out (links of the graph included). */
export interface RequestLoaders {
  templateById: DataLoader<string, TemplateRecord | undefined>;
  datasetVersions: DataLoader<string, DatasetVersions>;
  /** A connector version by id, or the Live version of a connector by its connector id. */
  connectorByName: DataLoader<string, ConnectorRecord | undefined>;
  channelById: DataLoader<string, ChannelRecord | undefined>;
  alertRuleById: DataLoader<string, AlertRuleView | undefined>;
  alertRulesByDataset: DataLoader<string, AlertRuleView[]>;
  ruleEvaluation: DataLoader<string, RuleEvaluation | null>;
  ruleNotifications: DataLoader<{ ruleId: string; take: number }, AlertNotificationRecord[], string>;
  silenceOfAlert: DataLoader<string, SilenceRecord | null>;
  templatesByDataset: DataLoader<string, TemplateRecord[]>;
  datasetHealth: DataLoader<string, DatasetHealth>;
  ingestionCounts: DataLoader<string, IngestionCounts>;
}

function createLoaders(services: Services): RequestLoaders {
  return {
    templateById: services.templates.createLoader(),
    datasetVersions: services.datasets.createLoader(),
    connectorByName: services.connectors.createLoader(),
    channelById: services.alerts.createChannelLoader(),
    alertRuleById: services.alertRules.createLoader(),
    alertRulesByDataset: services.alertRules.createDatasetLoader(),
    ruleEvaluation: services.alertRules.createEvaluationLoader(),
    ruleNotifications: services.alertRules.createNotificationsLoader(),
    silenceOfAlert: services.alerts.createSilenceLoader(),
    templatesByDataset: services.templates.createDatasetLoader(),
    datasetHealth: services.health.createLoader(),
    ingestionCounts: services.ingestion.createCountsLoader(),
  };
}

/** A request's access alone (what serving a kept answer needs), as the context below makes it. */
export function requestAccessFactory(accessControl?: AccessControl) {
  return (authentication?: Authentication, clientAddress?: string): RequestAccess => (accessControl ? accessControl.forRequest(authentication ?? {}, clientAddress) : unrestrictedAccess());
}

/**
 * `access` is the gateway's access control; without it (tools, older call sites) every context is
 * SYSTEM with no limits, as before authentication existed. `authentication` is what use-auth found
 * for the request, `clientAddress` keys the rate limit of anonymous callers.
 */
export function createContextFactory(services: Services, logger: Logger, accessControl?: AccessControl) {
  const accessFor = requestAccessFactory(accessControl);
  return (requestId: string, authentication?: Authentication, clientAddress?: string): GatewayContext => {
    const access = accessFor(authentication, clientAddress);
    return {
      requestId,
      caller: access.caller,
      access,
      actor: { id: access.caller?.id ?? 'anonymous' },
      logger: logger.child({ requestId }),
      services,
      loaders: createLoaders(services),
    };
  };
}

export type ContextFactory = ReturnType<typeof createContextFactory>;
