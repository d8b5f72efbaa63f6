/** The gateway's version, as its OpenAPI document, GraphQL schema, metrics and traces name it. */
export const GATEWAY_VERSION = '0.1.0';
