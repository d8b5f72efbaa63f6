// The REST door: the contract's /v2 and /alerts/v1 envelopes (and the original's other prefixes),
// each entry a GraphQL operation run on the same schema (rest/router.ts), with the REST table's
// OpenAPI document on /docs. The only file of src/ that imports rest/ besides the composition root.
import type { GraphQLSchema } from 'graphql';
import { buildOpenApiDocument } from '../../rest/openapi.js';
import { restEndpoints } from '../../rest/endpoints.js';
import { createRestRouter, REST_PREFIXES, restErrorHandler, routeNotFound } from '../../rest/router.js';
import type { Config } from '../config.js';
import type { createContextFactory } from '../context.js';
import type { ExecuteCompiled } from '../graphql/compiled-execution.js';
import type { ReadPlanner } from '../graphql/published-reads.js';
import { API_DOCS_PATHS, apiDocsRouter } from '../http/api-docs.js';
import { KeptReads } from '../http/kept-reads.js';
import type { Logger } from '../logger.js';
import type { PublishedCache } from '../platform/cache/published-cache.js';
import type { Transport } from './transport.js';

/** Most REST read URLs the fast path knows (each a few hundred bytes). */
const KEPT_READ_URLS = 20_000;

export interface RestTransportOptions {
  schema: GraphQLSchema;
  execute: ExecuteCompiled;
  config: Config;
  logger: Logger;
  createContext: ReturnType<typeof createContextFactory>;
  published: PublishedCache;
  planOf: ReadPlanner;
  gatewayVersion: string;
}

export function restTransport(options: RestTransportOptions): Transport & { keptReads: KeptReads } {
  const { config, logger } = options;
  const keptReads = new KeptReads(KEPT_READ_URLS);
  const router = createRestRouter({
    schema: options.schema,
    execute: options.execute,
    endpoints: restEndpoints,
    createContext: options.createContext,
    logger,
    bodyLimitBytes: config.http.bodyLimitBytes,
    largeBodyLimitBytes: config.ingestion.bodyLimitBytes,
    uploadLimitBytes: config.connectors.uploadLimitBytes,
    jsonLimits: config.jsonLimits,
    publishedReads: { cache: options.published, planOf: options.planOf },
    keptReads,
  });
  return {
    name: 'rest',
    publicRoutes: [apiDocsRouter(buildOpenApiDocument(restEndpoints, { version: options.gatewayVersion }))],
    apiPaths: REST_PREFIXES,
    routes: [router],
    paths: [...REST_PREFIXES, ...API_DOCS_PATHS],
    // Its not-found envelope answers every route nobody serves.
    notFound: routeNotFound,
    errorHandlers: [restErrorHandler(logger)],
    keptReads,
  };
}
