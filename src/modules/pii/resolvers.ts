// GraphQL resolvers for PII analysis: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const piiResolvers: Resolvers = {
  Query: {
    analyzePii: (_, { datasetId, records }, { services }) => services.pii.analyze(datasetId, records),
  },
};
