// Every GraphQL enum whose values the domain spells otherwise: the one table the schema's enum
// resolvers (src/graphql/schema.ts) and the generated types' enumValues (codegen.ts) are built from.
// Each domain keeps its own map beside its types; REST entries import the same maps.
import {
  ACTIVE_ALERT_STATE_VALUES,
  ALERT_NOTIFICATION_KIND_VALUES,
  ALERT_NOTIFICATION_OUTCOME_VALUES,
  ALERT_RULE_OPERATOR_VALUES,
  ALERT_RULE_ORDER_FIELD_VALUES,
  ALERT_RULE_SEVERITY_VALUES,
  ALERT_RULE_STATE_VALUES,
  ALERT_RULE_STATUS_VALUES,
} from '../modules/alert-rules/index.js';
import {
  ALERT_MANAGER_KIND_VALUES,
  NOTIFICATION_CHANNEL_ORDER_FIELD_VALUES,
  NOTIFICATION_CHANNEL_STATUS_VALUES,
  NOTIFICATION_CHANNEL_TYPE_VALUES,
  SILENCE_STATE_VALUES,
} from '../modules/alerts/index.js';
import { EXHAUST_TYPE_VALUES } from '../modules/data-access/index.js';
import { AUDIT_OUTCOME_VALUES, AUDIT_TRANSPORT_VALUES } from '../modules/audit/index.js';
import { CONNECTOR_CATEGORY_VALUES, CONNECTOR_STATUS_VALUES } from '../modules/connectors/index.js';
import { CHANGE_ACTION_VALUES, DATASET_STATUS_VALUES, DATASET_TRANSITION_VALUES, DATASET_TYPE_VALUES, DATASET_VERSION_VALUES, RESET_CATEGORY_VALUES } from '../modules/datasets/index.js';
import { FILE_ACCESS_VALUES, FILE_KIND_VALUES } from '../modules/files/index.js';
import { INGEST_OUTCOME_VALUES, INGEST_REFUSAL_STAGE_VALUES } from '../modules/ingestion/index.js';
import { HEALTH_CATEGORY_VALUES, HEALTH_STATUS_VALUES, METRIC_CATEGORY_VALUES, METRIC_COMPONENT_TYPE_VALUES } from '../modules/metrics/index.js';
import { SCHEMA_SUGGESTION_SEVERITY_VALUES } from '../modules/schema-inference/index.js';
import { SEARCH_FACET_FIELD_VALUES, SEARCH_FILTER_FIELD_VALUES, SEARCH_MATCH_FIELD_VALUES, SEARCH_ORDER_FIELD_VALUES, SEARCH_STATUS_VALUES, SEARCH_TYPE_VALUES } from '../modules/search/index.js';
import { AGGREGATION_LEVEL_VALUES, QUERY_TEMPLATE_SORT_FIELD_VALUES, QUERY_TYPE_VALUES } from '../modules/templates/index.js';

/** GraphQL's SortOrder values and what this domain calls each (resolvers, codegen and REST all read this). */
export const SORT_ORDER_VALUES = { ASC: 'asc', DESC: 'desc' } as const;

export const GRAPHQL_ENUM_VALUES = {
  AlertManagerKind: ALERT_MANAGER_KIND_VALUES,
  SilenceState: SILENCE_STATE_VALUES,
  AlertRuleStatus: ALERT_RULE_STATUS_VALUES,
  AlertRuleOperator: ALERT_RULE_OPERATOR_VALUES,
  AlertRuleSeverity: ALERT_RULE_SEVERITY_VALUES,
  AlertRuleState: ALERT_RULE_STATE_VALUES,
  ActiveAlertState: ACTIVE_ALERT_STATE_VALUES,
  AlertRuleOrderField: ALERT_RULE_ORDER_FIELD_VALUES,
  AlertNotificationKind: ALERT_NOTIFICATION_KIND_VALUES,
  AlertNotificationOutcome: ALERT_NOTIFICATION_OUTCOME_VALUES,
  NotificationChannelType: NOTIFICATION_CHANNEL_TYPE_VALUES,
  NotificationChannelStatus: NOTIFICATION_CHANNEL_STATUS_VALUES,
  NotificationChannelOrderField: NOTIFICATION_CHANNEL_ORDER_FIELD_VALUES,
  AuditTransport: AUDIT_TRANSPORT_VALUES,
  AuditOutcome: AUDIT_OUTCOME_VALUES,
  ConnectorStatus: CONNECTOR_STATUS_VALUES,
  ConnectorCategory: CONNECTOR_CATEGORY_VALUES,
  DatasetType: DATASET_TYPE_VALUES,
  ChangeAction: CHANGE_ACTION_VALUES,
  ResetCategory: RESET_CATEGORY_VALUES,
  DatasetStatus: DATASET_STATUS_VALUES,
  DatasetVersion: DATASET_VERSION_VALUES,
  DatasetTransition: DATASET_TRANSITION_VALUES,
  FileAccess: FILE_ACCESS_VALUES,
  FileKind: FILE_KIND_VALUES,
  IngestOutcome: INGEST_OUTCOME_VALUES,
  IngestRefusalStage: INGEST_REFUSAL_STAGE_VALUES,
  MetricCategory: METRIC_CATEGORY_VALUES,
  HealthStatus: HEALTH_STATUS_VALUES,
  HealthCategory: HEALTH_CATEGORY_VALUES,
  MetricComponentType: METRIC_COMPONENT_TYPE_VALUES,
  SchemaSuggestionSeverity: SCHEMA_SUGGESTION_SEVERITY_VALUES,
  QueryType: QUERY_TYPE_VALUES,
  QueryTemplateSortField: QUERY_TEMPLATE_SORT_FIELD_VALUES,
  AggregationLevel: AGGREGATION_LEVEL_VALUES,
  SortOrder: SORT_ORDER_VALUES,
  ExhaustType: EXHAUST_TYPE_VALUES,
  SearchType: SEARCH_TYPE_VALUES,
  SearchStatus: SEARCH_STATUS_VALUES,
  SearchOrderField: SEARCH_ORDER_FIELD_VALUES,
  SearchFacetField: SEARCH_FACET_FIELD_VALUES,
  SearchMatchField: SEARCH_MATCH_FIELD_VALUES,
  SearchFilterField: SEARCH_FILTER_FIELD_VALUES,
} as const;
