// GraphQL resolvers for schema inference: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const schemaInferenceResolvers: Resolvers = {
  Query: {
    inferSchema: (_, { samples, dataset }, { services }) => services.schemaInference.infer({ samples, dataset }),
  },
  // The domain spells severities as the original does; GraphQL needs names.
};
