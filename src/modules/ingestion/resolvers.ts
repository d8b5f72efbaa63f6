// GraphQL resolvers for ingestion: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const ingestionResolvers: Resolvers = {
  Query: {
    checkEvent: (_, { datasetId, version, event }, { services }) => services.ingestion.checkEvent(datasetId, version ?? 'live', event),
    ingestionStats: (_, { datasetId }, { services }) => ({ datasetId, ...services.ingestion.counts(datasetId) }),
  },
  Mutation: {
    ingest: (_, { datasetId, data, msgid }, { services }) => services.ingestion.ingest(datasetId, data, msgid),
  },
};
