// The per-request context, built by one factory for GraphQL over HTTP and for REST calls alike, so
// both transports get the same caller, loaders and services.
import type DataLoader from 'dataloader';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { unrestrictedAccess, type AccessControl, type Authentication, type Caller, type RequestAccess } from './auth/access.js';
import type { Logger } from './logger.js';
import type { AlertService, ChannelRecord, SilenceRecord } from './modules/alerts/index.js';
import type { AlertRuleService, AlertNotificationRecord, AlertRuleView, RuleEvaluation, RulesAboutDataset } from './modules/alert-rules/index.js';
import type { AuditService } from './modules/audit/index.js';
import type { ConnectorService, ConnectorRecord } from './modules/connectors/index.js';
import type { DataAccessService, MetricsQueries } from './modules/data-access/index.js';
import type { DatasetService, DatasetVersions } from './modules/datasets/index.js';
import type { FileService } from './modules/files/index.js';
import type { SchemaInferenceService } from './modules/schema-inference/index.js';
import type { JobService } from './modules/jobs/index.js';
import type { IngestionService, IngestionCounts } from './modules/ingestion/index.js';
import type { DatasetHealth, HealthService, MetricsService } from './modules/metrics/index.js';
import type { PiiService } from './modules/pii/index.js';
import type { TemplateService, TemplateRecord } from './modules/templates/index.js';
import type { IngestionPoint, IngestionSeriesKey, SeriesService } from './modules/series/index.js';
import type { SearchService } from './modules/search/index.js';
import type { Lineage, LineageRequest, LineageService } from './modules/lineage/index.js';
import type { HistoryService } from './modules/history/index.js';
import type { LiveEvents } from './modules/live/index.js';
import type { Actor } from './auth/actor.js';

export interface Services {
  templates: TemplateService;
  datasets: DatasetService;
  dataAccess: DataAccessService;
  metricsQueries: MetricsQueries;
  schemaInference: SchemaInferenceService;
  /** Long work run in the background (exports, connector registrations, inference from a file). */
  jobs: JobService;
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
  lineage: LineageService;
  history: HistoryService;
  /** Live events for subscriptions, and the ingestion interval they default to. */
  live: { events: LiveEvents; defaultEverySeconds: number };
}

export interface GatewayContext {
  requestId: string;
  /** The REST API id when the call came over REST (set by the REST router); absent over GraphQL. */
  apiId?: string;
  /**
   * The row bound (TEMPLATE_QUERY_MAX_ROWS) a query result of this request was cut at, noted by the
   * resolver that ran it; the REST router answers it as the x-result-truncated header.
   */
  resultRowLimit?: number;
  /** Who is calling, as authenticated (AUTH_MODE=none: SYSTEM); undefined when anonymous. */
  caller?: Caller;
  /** The access check every root field passes (and the REST router before it reads a body). */
  access: RequestAccess;
  /** The caller's id as services record it (created_by, updated_by); `anonymous` without one. */
  actor: Actor;
  logger: Logger;
  services: Services;
  loaders: RequestLoaders;
  /** Present in a shared evaluation of subscriptions (the live door), which alone runs live queries. */
  liveQueries?: LiveQuerySupport;
}

/** What a live query needs of its evaluation (src/modules/live). */
export interface LiveQuerySupport {
  /** The tables a query's answer is made of (null: not known, so any change), and how long its figures stay current. */
  readsOf(document: DocumentNode, operation: OperationDefinitionNode): { tables: readonly string[] | null; refreshMs?: number };
  /** LIVE_QUERY_MIN_INTERVAL_MS */
  minIntervalMs: number;
  /** Renews the loaders, so that the next reading reads afresh. */
  renewLoaders(): void;
}

/** Per-request batches of every lookup a list can fan out (links of the graph included). */
export interface RequestLoaders {
  templateById: DataLoader<string, TemplateRecord | undefined>;
  datasetVersions: DataLoader<string, DatasetVersions>;
  /** A connector version by id, or the Live version of a connector by its connector id. */
  connectorByName: DataLoader<string, ConnectorRecord | undefined>;
  channelById: DataLoader<string, ChannelRecord | undefined>;
  alertRuleById: DataLoader<string, AlertRuleView | undefined>;
  /** The rules about a dataset, with the record fields its reader needs. */
  alertRulesByDataset: DataLoader<RulesAboutDataset, AlertRuleView[], string>;
  ruleEvaluation: DataLoader<string, RuleEvaluation | null>;
  ruleNotifications: DataLoader<{ ruleId: string; take: number }, AlertNotificationRecord[], string>;
  silenceOfAlert: DataLoader<string, SilenceRecord | null>;
  templatesByDataset: DataLoader<string, TemplateRecord[]>;
  datasetHealth: DataLoader<string, DatasetHealth>;
  ingestionCounts: DataLoader<string, IngestionCounts>;
  /** Dataset.ingestionSeries of a page: one range query per grid asked. */
  ingestionSeries: DataLoader<IngestionSeriesKey, IngestionPoint[], string>;
  /** Lineage of every record a request asks about: one statement per level. */
  lineage: DataLoader<LineageRequest, Lineage, string>;
}

/**
 * A request's loaders, each made the first time a resolver asks for it: most requests use one or
 * two (a kept answer none), and making all twelve cost every request before it was even looked up.
 */
class RequestLoadersOnDemand implements RequestLoaders {
  private readonly made: Partial<RequestLoaders> = {};

  constructor(private readonly services: Services) {}

  get templateById() {
    return (this.made.templateById ??= this.services.templates.createLoader());
  }
  get datasetVersions() {
    return (this.made.datasetVersions ??= this.services.datasets.createLoader());
  }
  get connectorByName() {
    return (this.made.connectorByName ??= this.services.connectors.createLoader());
  }
  get channelById() {
    return (this.made.channelById ??= this.services.alerts.createChannelLoader());
  }
  get alertRuleById() {
    return (this.made.alertRuleById ??= this.services.alertRules.createLoader());
  }
  get alertRulesByDataset() {
    return (this.made.alertRulesByDataset ??= this.services.alertRules.createDatasetLoader());
  }
  get ruleEvaluation() {
    return (this.made.ruleEvaluation ??= this.services.alertRules.createEvaluationLoader());
  }
  get ruleNotifications() {
    return (this.made.ruleNotifications ??= this.services.alertRules.createNotificationsLoader());
  }
  get silenceOfAlert() {
    return (this.made.silenceOfAlert ??= this.services.alerts.createSilenceLoader());
  }
  get templatesByDataset() {
    return (this.made.templatesByDataset ??= this.services.templates.createDatasetLoader());
  }
  get datasetHealth() {
    return (this.made.datasetHealth ??= this.services.health.createLoader());
  }
  get ingestionCounts() {
    return (this.made.ingestionCounts ??= this.services.ingestion.createCountsLoader());
  }
  get ingestionSeries() {
    return (this.made.ingestionSeries ??= this.services.series.createIngestionLoader());
  }
  get lineage() {
    return (this.made.lineage ??= this.services.lineage.createLoader());
  }
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
      loaders: new RequestLoadersOnDemand(services),
    };
  };
}

export type ContextFactory = ReturnType<typeof createContextFactory>;
