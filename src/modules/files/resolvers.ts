// GraphQL resolvers for pre-signed file links: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';

export const fileResolvers: Resolvers = {
  Mutation: {
    generateFileUrls: (_, { files, access, kind }, { services }) => services.files.generateUrls({ files, access, kind }),
  },
};
