// GraphQL resolvers for dataset health metrics: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import { metricsFieldPermissions } from './permissions.js';

export const metricsResolvers: Resolvers = {
  Query: {
    datasetHealth: (_, { datasetId, categories }, { services }) => services.health.check(datasetId, categories),
  },
  Dataset: {
    health: (dataset, _, context) => {
      context.access.authorize(metricsFieldPermissions['Query.datasetHealth']!);
      return dataset.stage === 'live' && dataset.status === 'Live' ? context.loaders.datasetHealth.load(dataset.datasetId) : null;
    },
    metrics: (dataset, { categories, period }, { services, loaders }) => services.metrics.forDataset(dataset.datasetId, { categories, period }, loaders.datasetVersions),
  },
};
