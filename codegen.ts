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
          QueryTemplate: '../modules/templates/types.js#TemplateRecord',
          QueryTemplateConnection: '../modules/templates/types.js#TemplatePage',
          Dataset: '../modules/datasets/types.js#DatasetRecord',
          DatasetConnection: '../modules/datasets/types.js#DatasetPage',
          Datasource: '../modules/datasets/datasources.js#DatasourceEntry',
          DatasourceConnection: '../modules/datasets/datasources.js#DatasourcePage',
          DatasourceSizeConnection: '../modules/data-access/metrics.js#DatasourceSizePage',
          DatasetConnector: '../modules/datasets/definition.js#ConnectorInstance',
          Connector: '../modules/connectors/types.js#ConnectorRecord',
          ConnectorConnection: '../modules/connectors/types.js#ConnectorPage',
          FileLink: '../modules/files/types.js#SignedFile',
          Silence: '../modules/alerts/types.js#SilenceRecord',
          SilenceConnection: '../modules/alerts/types.js#SilencePage',
          MetricAlias: '../modules/alerts/types.js#MetricAliasRecord',
          MetricAliasConnection: '../modules/alerts/types.js#MetricAliasPage',
          NotificationChannel: '../modules/alerts/types.js#ChannelRecord',
          NotificationChannelConnection: '../modules/alerts/types.js#ChannelPage',
          NotificationChannelConfig: '../modules/alerts/types.js#ChannelConfig',
          SilenceState: '../modules/alerts/types.js#SilenceState as SilenceStateModel',
          AlertRule: '../modules/alert-rules/types.js#AlertRuleView',
          AlertRuleConnection: '../modules/alert-rules/types.js#AlertRulePage',
          AlertRuleEvaluation: '../modules/alert-rules/types.js#RuleEvaluation',
          AlertNotification: '../modules/alert-rules/types.js#AlertNotificationRecord',
          ActiveAlert: '../modules/alert-rules/types.js#ActiveAlertView',
          AlertNotificationConnection: '../modules/alert-rules/types.js#AlertNotificationPage',
          AuditRecord: '../modules/audit/types.js#AuditRecord as AuditRecordModel',
          AuditRecordConnection: '../modules/audit/types.js#AuditPage',
          DatasetChange: '../modules/live/events.js#DatasetChange as DatasetChangeModel',
          SearchConnection: '../modules/search/resolvers.js#SearchResults',
          SearchEdge: '../modules/search/resolvers.js#SearchResultEdge',
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
