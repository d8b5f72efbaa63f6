// GraphQL resolvers for ingestion: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import { ingestionFieldPermissions } from './permissions.js';

export const ingestionResolvers: Resolvers = {
  Query: {
    checkEvent: async (_, { datasetId, version, event }, { services }) => {
      const problem = await services.ingestion.checkEvent(datasetId, version ?? 'live', event);
      return problem ? { isValid: false, message: problem } : { isValid: true, message: 'The event is valid' };
    },
    ingestionStats: (_, { datasetId }, { services }) => ({ datasetId, ...services.ingestion.counts(datasetId) }),
  },
  Dataset: {
    // In-memory counters of this process: no statement to batch.
    ingestion: (dataset, _, context) => {
      context.access.authorize(ingestionFieldPermissions['Query.ingestionStats']!);
      return { datasetId: dataset.datasetId, ...context.services.ingestion.counts(dataset.datasetId) };
    },
  },
  Mutation: {
    ingest: async (_, { datasetId, data, msgid }, { services }) => ({ message: 'Data ingested successfully', ...(await services.ingestion.ingest(datasetId, data, msgid)) }),
  },
};
