// GraphQL resolvers for ingestion: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import { ingestionFieldPermissions } from './permissions.js';

export const ingestionResolvers: Resolvers = {
  Query: {
    checkEvent: async (_, { datasetId, version, event }, { services }) => {
      const problem = await services.ingestion.checkEvent(datasetId, version ?? 'live', event);
      return problem ? { isValid: false, message: problem } : { isValid: true, message: 'The event is valid' };
    },
    ingestionStats: async (_, { datasetId }, { services }) => ({ datasetId, ...(await services.ingestion.counts(datasetId)) }),
  },
  Dataset: {
    ingestion: async (dataset, _, context) => {
      context.access.authorize(ingestionFieldPermissions['Query.ingestionStats']!);
      return { datasetId: dataset.datasetId, ...(await context.loaders.ingestionCounts.load(dataset.datasetId)) };
    },
  },
  Mutation: {
    ingest: async (_, { datasetId, data, msgid }, { services }) => ({ message: 'Data ingested successfully', ...(await services.ingestion.ingest(datasetId, data, msgid)) }),
  },
};
