// GraphQL resolvers for the connector registry: arguments in, service call, result out.
import { nodeFieldReads } from '../../graphql/field-reads.js';
import { globalId } from '../../graphql/global-id.js';
import { GraphQLUpload } from 'graphql-upload-minimal';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import type { Resolvers } from '../../generated/graphql.js';
import type { ConnectorRecord } from './types.js';

export const connectorResolvers: Resolvers = {
  Upload: GraphQLUpload,
  Query: {
    connector: (_, { id, status }, { services }) => services.connectors.get(id, status),
    connectors: (_, { filter, where, orderBy, first, after, last, before }, { services }, info) =>
      services.connectors.list({ statuses: filter?.status, categories: filter?.category, where, orderBy, first, after, last, before }, nodeFieldReads(info)),
  },
  Mutation: {
    // The original's success message, which its clients show as it is.
    registerConnector: async (_, { file }, { services, actor }) => ({ message: 'connector registered successfully.', connectors: await services.connectors.register(file, actor) }),
  },
  Connector: {
    id: (connector) => globalId('Connector', connector.id),
    connectorVersionId: (connector) => connector.id,
    uiSpec: (connector, _, { services }) => services.connectors.uiSpecOf(connector),
    createdAt: (connector) => connector.createdDate,
    updatedAt: (connector) => connector.updatedDate,
    liveAt: (connector) => connector.liveDate,
  },
  ConnectorConnection: listConnectionResolvers<ConnectorRecord>(),
  DatasetConnector: {
    connector: (instance, _, context) => {
      return context.loaders.connectorByName.load(instance.connectorId).then((record) => record ?? null);
    },
  },
};
