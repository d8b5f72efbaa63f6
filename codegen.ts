// GraphQL Code Generator (run by `npm run generate`):
// - src/generated/graphql.ts: resolver types from the SDL in graphql/, with mappers pointing at our
//   domain types so resolvers return service results as they are, and enum values as the domain
//   spells them, read from the one table src/graphql/enum-values.ts (the schema's enum resolvers
//   use the same table, so the two cannot drift);
// - src/generated/rest-operations.ts: the variables and data of each REST entry's operation (the
//   documents in rest/*.ts marked /* GraphQL */), so an entry's `variables` and `result` are typed.
import type { CodegenConfig } from '@graphql-codegen/cli';
import { GRAPHQL_ENUM_VALUES } from './src/graphql/enum-values.ts';

const SCALARS = {
  DateTime: 'Date',
  JSON: 'unknown',
  Upload: "Promise<import('graphql-upload-minimal').FileUpload>",
};

const config: CodegenConfig = {
  schema: 'graphql/*.graphql',
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useIndexSignature: true,
        useTypeImports: true,
        enumsAsTypes: true,
        contextType: '../context.js#GatewayContext',
        mappers: {
          QueryTemplate: '../modules/templates/index.js#TemplateRecord',
          QueryTemplateConnection: '../modules/templates/index.js#TemplatePage',
          Dataset: '../modules/datasets/index.js#DatasetRecord',
          DatasetConnection: '../modules/datasets/index.js#DatasetPage',
          DatasetConnectorConnection: '../modules/datasets/index.js#ConnectorInstancePage',
          Datasource: '../modules/datasets/index.js#DatasourceEntry',
          DatasourceConnection: '../modules/datasets/index.js#DatasourcePage',
          DatasourceSizeConnection: '../modules/data-access/index.js#DatasourceSizePage',
          DatasetConnector: '../modules/datasets/index.js#ConnectorInstance',
          DatasetSectionsAsWritten: '../modules/datasets/index.js#DatasetRecord',
          Connector: '../modules/connectors/index.js#ConnectorRecord',
          ConnectorConnection: '../modules/connectors/index.js#ConnectorPage',
          FileLink: '../modules/files/index.js#SignedFile',
          Job: '../modules/jobs/index.js#JobRecord',
          Silence: '../modules/alerts/index.js#SilenceRecord',
          SilenceConnection: '../modules/alerts/index.js#SilencePage',
          MetricAlias: '../modules/alerts/index.js#MetricAliasRecord',
          MetricAliasConnection: '../modules/alerts/index.js#MetricAliasPage',
          NotificationChannel: '../modules/alerts/index.js#ChannelRecord',
          NotificationChannelConnection: '../modules/alerts/index.js#ChannelPage',
          NotificationChannelConfig: '../modules/alerts/index.js#ChannelConfig',
          SilenceState: '../modules/alerts/index.js#SilenceState as SilenceStateModel',
          AlertRule: '../modules/alert-rules/index.js#AlertRuleView',
          AlertRuleConnection: '../modules/alert-rules/index.js#AlertRulePage',
          AlertRuleEvaluation: '../modules/alert-rules/index.js#RuleEvaluation',
          AlertNotification: '../modules/alert-rules/index.js#AlertNotificationRecord',
          ActiveAlert: '../modules/alert-rules/index.js#ActiveAlertView',
          AlertNotificationConnection: '../modules/alert-rules/index.js#AlertNotificationPage',
          AuditRecord: '../modules/audit/index.js#AuditRecord as AuditRecordModel',
          AuditRecordConnection: '../modules/audit/index.js#AuditPage',
          DatasetChange: '../modules/live/index.js#DatasetChange as DatasetChangeModel',
          SearchConnection: '../modules/search/index.js#SearchResults',
          SearchEdge: '../modules/search/index.js#SearchResultEdge',
          AutocompleteSuggestion: '../modules/search/index.js#SuggestionRecord',
          Lineage: '../modules/lineage/index.js#Lineage as LineageModel',
          LineageNode: '../modules/lineage/index.js#LineageNode as LineageNodeModel',
          LineageEdge: '../modules/lineage/index.js#LineageEdge as LineageEdgeModel',
          LineageRef: '../modules/lineage/index.js#LineageRef as LineageRefModel',
          HistoryConnection: '../modules/history/index.js#HistoryPage',
          HistoryEntry: '../modules/history/index.js#HistoryEntry as HistoryEntryModel',
          ChangedPath: '../modules/history/index.js#ChangedPath as ChangedPathModel',
        },
        enumValues: GRAPHQL_ENUM_VALUES,
        scalars: SCALARS,
      },
    },
    'src/generated/rest-operations.ts': {
      documents: 'rest/*.ts',
      plugins: ['typescript-operations'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        onlyOperationTypes: true,
        avoidOptionals: { field: true, inputValue: false, object: true, defaultValue: false },
        // Variables come from JSON (text); results come from the schema run in process, where a DateTime is a Date.
        scalars: { ...SCALARS, DateTime: { input: 'string', output: 'Date' } },
      },
    },
  },
};

export default config;
