// GraphQL resolvers for ad-hoc data queries: arguments in, service call, result out.
import { noteRowLimit } from '../../graphql/row-limit.js';
import type { Resolvers } from '../../generated/graphql.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import type { DatasourceSizeEntry } from './metrics.js';

export const dataAccessResolvers: Resolvers = {
  Query: {
    queryDataset: async (_, { dataset, query, aggregationLevel }, context) => noteRowLimit(context, await context.services.dataAccess.query(dataset, query, aggregationLevel)),
    sqlQuery: async (_, { query }, context) => noteRowLimit(context, await context.services.dataAccess.sql(query)),
    prometheus: (_, { path, params }, { services }) => services.metricsQueries.prometheus(path, params),
    druidNativeQuery: async (_, { query }, context) => noteRowLimit(context, await context.services.metricsQueries.native(query)),
    datasourceSizes: (_, _args, { services }) => services.metricsQueries.datasourceSizes(),
    datasourceSizePage: (_, args, { services }) => services.metricsQueries.datasourceSizePage(args),
    datasetExhaust: async (_, { datasetId, type, from, to, since }, { services }) => {
      const found = await services.dataAccess.exhaust(datasetId, { type, from, to, since });
      return { expiresAt: found.expiresAt, files: found.files, days: Object.entries(found.periodWiseFiles).map(([day, files]) => ({ day, files })) };
    },
  },
  DatasourceSizeConnection: listConnectionResolvers<DatasourceSizeEntry>(),
};
