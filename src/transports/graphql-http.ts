// The GraphQL-over-HTTP door: Apollo Server on POST and GET /graphql, behind the kept-answer
// middleware, with the pipeline's policies as Apollo plugins where Apollo runs them (README "One
// operation pipeline"): limits, cost, JSON limits, introspection for callers only, persisted
// operations, kept answers, one error shape, the operation's name for the log and metrics.
import type http from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { AccessControl, Authentication } from '../auth/access.js';
import { introspectionNeedsCaller } from '../auth/introspection.js';
import type { Config } from '../config.js';
import { type GatewayContext, requestAccessFactory, type createContextFactory } from '../context.js';
import { formatGraphQLError, reportUnexpectedError } from '../graphql/errors.js';
import { aliasLimitRule, costLimitPlugin, type CostOptions, depthLimitRule, jsonLimitsPlugin, limitBatch } from '../graphql/limits.js';
import { persistedOnlyFor, persistedOperationsPlugin, type PersistedOperations } from '../graphql/persisted-operations.js';
import type { ReadPlanner } from '../graphql/published-reads.js';
import { publishedResults } from '../graphql/published-results.js';
import { unlessParsedAhead } from '../http/body-read-ahead.js';
import { writeKeptAnswer } from '../http/kept-answer.js';
import { limitAnonymousGraphQL, type LimitAnonymousOptions } from '../http/limit-anonymous.js';
import { useGraphQLUpload } from '../http/use-graphql-upload.js';
import { graphqlObservabilityPlugin } from '../http/use-observability.js';
import type { PublishedCache } from '../platform/cache/published-cache.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import { sizeText } from '../config/values.js';

export interface GraphQLHttpOptions {
  httpServer: http.Server;
  schema: GraphQLSchema;
  config: Config;
  published: PublishedCache;
  planOf: ReadPlanner;
  metrics: GatewayMetrics;
  rateLimiter: LimitAnonymousOptions['limiter'];
  accessControl: AccessControl;
  createContext: ReturnType<typeof createContextFactory>;
  persistedOperations: PersistedOperations;
  costOptions: CostOptions;
}

/** Logs the errors formatGraphQLError masks, with the request id. */
const logUnexpectedErrors: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) reportUnexpectedError(contextValue.logger, error);
      },
    };
  },
};

export async function startGraphQLHttp(options: GraphQLHttpOptions) {
  const { config, metrics } = options;
  const limits = config.graphqlLimits;
  const persistedRequiredFor = config.graphql.persistedOperations.requiredFor;
  const keptResults = publishedResults<GatewayContext>({ cache: options.published, planOf: options.planOf, maxEntries: 2_000, writeAnswer: writeKeptAnswer });
  const accessFor = requestAccessFactory(options.accessControl);
  const apollo = new ApolloServer<GatewayContext>({
    schema: options.schema,
    introspection: config.graphql.introspection,
    csrfPrevention: true,
    parseOptions: { maxTokens: limits.maxTokens },
    validationRules: [depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases)],
    allowBatchedHttpRequests: limits.maxBatch > 1,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: options.httpServer }),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      logUnexpectedErrors,
      graphqlObservabilityPlugin(metrics),
      costLimitPlugin(limits.maxCost, options.costOptions),
      jsonLimitsPlugin(config.jsonLimits),
      introspectionNeedsCaller(),
      persistedOperationsPlugin(options.persistedOperations, persistedRequiredFor),
      keptResults.plugin,
    ],
  });
  await apollo.start();
  const createContext = options.createContext;
  /** The /graphql stack, mounted after the request id, observation, timeout and authentication every API path has. */
  const middleware: RequestHandler[] = [
    limitAnonymousGraphQL({ limiter: options.rateLimiter }),
    useGraphQLUpload({ maxFileBytes: config.connectors.uploadLimitBytes }),
    // GraphQL carries ingest batches too, so it takes bodies up to the larger of the two limits; a
    // body the fast path parsed ahead is not parsed again.
    unlessParsedAhead(express.json({ limit: Math.max(config.http.bodyLimitBytes, config.ingestion.bodyLimitBytes) })),
    limitBatch(limits.maxBatch),
    keptResults.keptAnswers((req, res) => accessFor(res.locals.auth as Authentication | undefined, req.ip), persistedOnlyFor(persistedRequiredFor)),
    expressMiddleware(apollo, { context: async ({ req, res }) => createContext(res.locals.requestId as string, res.locals.auth as Authentication | undefined, req.ip) }),
  ];
  return {
    middleware,
    /** For the fast path, which must decide about kept answers as the middleware does. */
    keptAnswerFor: keptResults.keptAnswerFor,
    stop: () => apollo.stop(),
  };
}

/**
 * A /graphql body that cannot be read (not JSON, too large, an unsupported charset or content
 * encoding, a compressed body that does not decompress) gets a GraphQL-shaped error, not an HTML
 * page nor the REST envelope.
 */
export function graphqlBodyErrorHandler(bodyLimit: { bytes: number; setting: string }) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => answerGraphQLBodyError(error, req, res, next, bodyLimit);
}

function answerGraphQLBodyError(error: unknown, req: Request, res: Response, next: NextFunction, bodyLimit: { bytes: number; setting: string }) {
  const { type, status, expose } = (error ?? {}) as { type?: unknown; status?: unknown; expose?: unknown };
  const clientError = typeof status === 'number' && status >= 400 && status < 500 && expose !== false;
  if (!req.path.startsWith('/graphql') || (typeof type !== 'string' && !clientError) || res.headersSent) return next(error);
  const detail = (error as Error).message;
  const message =
    type === 'entity.too.large'
      ? `the request body is too large: over the ${bodyLimit.bytes}-byte limit (${bodyLimit.setting}=${sizeText(bodyLimit.bytes)}); send a smaller body or raise ${bodyLimit.setting}`
      : type === 'entity.parse.failed'
        ? `the request body is not valid JSON: ${detail}`
        : typeof type === 'string'
          ? detail
          : `the request body could not be read: ${detail}`;
  res.status(typeof status === 'number' ? status : 400).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
}
