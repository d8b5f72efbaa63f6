// GraphQL resolvers for `history` on datasets, templates, alert rules and channels: the record's key
// and the page's arguments in, the service's page out, served by the list contract's connection resolvers.
import type { Resolvers } from '../../generated/graphql.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import type { HistoryEntry } from './types.js';

// A history has no groupBy or aggregate (a record's history is at most VERSION_RETENTION entries, each read whole).
const { groupBy: _noGroups, aggregate: _noFigures, ...historyConnection } = listConnectionResolvers<HistoryEntry>();

export const historyResolvers: Resolvers = {
  Dataset: { history: (dataset, args, { services }) => services.history.history('Dataset', dataset.datasetId, args) },
  QueryTemplate: { history: (template, args, { services }) => services.history.history('QueryTemplate', template.templateId, args) },
  AlertRule: { history: (rule, args, { services }) => services.history.history('AlertRule', rule.id, args) },
  NotificationChannel: { history: (channel, args, { services }) => services.history.history('NotificationChannel', channel.id, args) },
  HistoryConnection: historyConnection,
};
