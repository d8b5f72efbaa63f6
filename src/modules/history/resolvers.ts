// GraphQL resolvers for `history` on datasets, templates, alert rules and channels: the record's key
// and the page's arguments in, the service's page out, served by the list contract's connection resolvers.
import type { Resolvers } from '../../generated/graphql.js';
import { pageConnectionResolvers } from '../../graphql/list-connection.js';
import type { HistoryEntry } from './types.js';

// A history has no groupBy or aggregate (a record's history is at most VERSION_RETENTION entries, each read whole).
const historyConnection = pageConnectionResolvers<HistoryEntry>();

export const historyResolvers: Resolvers = {
  Dataset: { history: (dataset, args, { loaders, services }) => services.history.history(loaders, 'Dataset', dataset.datasetId, args) },
  QueryTemplate: { history: (template, args, { loaders, services }) => services.history.history(loaders, 'QueryTemplate', template.templateId, args) },
  AlertRule: { history: (rule, args, { loaders, services }) => services.history.history(loaders, 'AlertRule', rule.id, args) },
  NotificationChannel: { history: (channel, args, { loaders, services }) => services.history.history(loaders, 'NotificationChannel', channel.id, args) },
  HistoryConnection: historyConnection,
};
