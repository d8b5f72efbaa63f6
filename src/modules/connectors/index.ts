// The connectors module as code outside src/modules/connectors/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { CONNECTOR_CATEGORY_VALUES, CONNECTOR_STATUS_VALUES, type ConnectorPage, type ConnectorRecord } from './types.js';
export { connectorList } from './list.js';
export { connectorFieldReads, connectorsFieldPermissions, connectorsPublishedReads } from './permissions.js';
export { createConnectorStore } from './store.js';
export { type ConnectorService, createConnectorService } from './service.js';
export { connectorResolvers } from './resolvers.js';
