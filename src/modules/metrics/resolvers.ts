// GraphQL resolvers for dataset health metrics: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const metricsResolvers: Resolvers = {
  Query: {
    datasetHealth: (_, { datasetId, categories }, { services }) => services.health.check(datasetId, categories),
  },
  Dataset: {
    metrics: (dataset, { categories, period }, { services, loaders }) => services.metrics.forDataset(dataset.datasetId, { categories, period }, loaders.datasetVersions),
  },
};
