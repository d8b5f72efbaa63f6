// The GraphQL-over-HTTP door: Apollo Server on POST and GET /graphql, behind the kept-answer
// middleware, with the pipeline's policies as Apollo plugins where Apollo runs them (docs/architecture.md "One
// operation pipeline"): limits, cost, JSON limits, introspection for callers only, persisted
// operations, kept answers, one error shape, the operation's name for the log and metrics.
import type http from 'node:http';
import { ApolloServer, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { printSchema, type GraphQLSchema } from 'graphql';
import type { AccessControl, Authentication } from '../auth/access.js';
import type { Config } from '../config.js';
import { type GatewayContext, requestAccessFactory, type createContextFactory } from '../context.js';
import type { ExecuteCompiled } from '../graphql/compiled-execution.js';
import { formatGraphQLError, reportUnexpectedError } from '../graphql/errors.js';
import { limitBatch } from '../graphql/limits.js';
import { asApolloError, OperationRefusal, type OperationChecks } from '../graphql/pipeline/operation-checks.js';
import type { ReadPlanner } from '../graphql/published-reads.js';
import { publishedResults } from '../graphql/published-results.js';
import { unlessParsedAhead } from '../http/body-read-ahead.js';
import { graphiqlRouter } from '../http/graphiql.js';
import { writeKeptAnswer } from '../http/kept-answer.js';
import { limitAnonymousGraphQL, type LimitAnonymousOptions } from '../http/limit-anonymous.js';
import { useGraphQLUpload } from '../http/use-graphql-upload.js';
import { graphqlObservabilityPlugin } from '../http/use-observability.js';
import type { PublishedCache } from '../platform/cache/published-cache.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { Transport } from './transport.js';
import { sizeText } from '../config/values.js';

export interface GraphQLHttpOptions {
  httpServer: http.Server;
  schema: GraphQLSchema;
  /** The pipeline's executor (compiled per document), which Apollo runs operations with. */
  execute: ExecuteCompiled;
  config: Config;
  published: PublishedCache;
  planOf: ReadPlanner;
  metrics: GatewayMetrics;
  rateLimiter: LimitAnonymousOptions['limiter'];
  accessControl: AccessControl;
  createContext: ReturnType<typeof createContextFactory>;
  checks: OperationChecks;
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

/**
 * The pipeline's checks (src/graphql/pipeline/operation-checks.ts) where Apollo knows the operation;
 * the document's cost goes out in `extensions.cost`. A request naming a listed operation by id only
 * gets its text first, before Apollo looks in its own persisted-query cache.
 */
function operationChecksPlugin(checks: OperationChecks): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ request }) {
      if (request.query === undefined) request.query = checks.listedText(request.extensions);
      let cost: number | undefined;
      return {
        async didResolveOperation({ document, operation, request, queryHash, contextValue }) {
          if (!operation) return;
          try {
            cost = checks.check(contextValue.access, { document, operation, variables: request.variables ?? {}, documentHash: queryHash }, 'graphql-http');
          } catch (error) {
            throw error instanceof OperationRefusal ? asApolloError(error) : error;
          }
        },
        async willSendResponse({ response }) {
          if (cost === undefined || response.body.kind !== 'single') return;
          response.body.singleResult.extensions = { ...response.body.singleResult.extensions, cost };
        },
      };
    },
  };
}

/**
 * Apollo runs operations through a gateway's executor when it is given one: this one is the
 * pipeline's compiled executor, in graphql-js's place. Apollo still parses, validates, runs the
 * plugins and writes the answer. The schema never changes, so it is announced once.
 */
function compiledExecution(schema: GraphQLSchema, execute: ExecuteCompiled): ApolloServerOptionsWithGateway<GatewayContext>['gateway'] {
  return {
    onSchemaLoadOrUpdate(callback) {
      // The SDL only for a plugin that asks (none here): printing the whole schema costs start-up time.
      callback({
        apiSchema: schema,
        get coreSupergraphSdl() {
          return printSchema(schema);
        },
      });
      return () => undefined;
    },
    async load() {
      return {
        executor: (request) =>
          execute({
            document: request.document,
            documentKey: request.queryHash,
            operationName: request.operationName,
            variableValues: request.request.variables,
            contextValue: request.context,
          }),
      };
    },
    async stop() {},
  };
}

export async function startGraphQLHttp(options: GraphQLHttpOptions) {
  const { config, metrics } = options;
  const limits = config.graphqlLimits;
  const keptResults = publishedResults<GatewayContext>({ cache: options.published, planOf: options.planOf, maxEntries: 2_000, writeAnswer: writeKeptAnswer });
  const accessFor = requestAccessFactory(options.accessControl);
  const apollo = new ApolloServer<GatewayContext>({
    gateway: compiledExecution(options.schema, options.execute),
    introspection: config.graphql.introspection,
    csrfPrevention: true,
    parseOptions: { maxTokens: limits.maxTokens },
    validationRules: [...options.checks.limitRules],
    allowBatchedHttpRequests: limits.maxBatch > 1,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: options.httpServer }),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      logUnexpectedErrors,
      graphqlObservabilityPlugin(metrics),
      operationChecksPlugin(options.checks),
      keptResults.plugin,
    ],
  });
  await apollo.start();
  const createContext = options.createContext;
  /** The /graphql stack, mounted after the request id, observation, timeout and authentication every API path has. */
  const graphqlRoutes = express.Router();
  graphqlRoutes.use(
    '/graphql',
    limitAnonymousGraphQL({ limiter: options.rateLimiter }),
    useGraphQLUpload({ maxFileBytes: config.connectors.uploadLimitBytes }),
    // GraphQL carries ingest batches too, so it takes bodies up to the larger of the two limits; a
    // body the fast path parsed ahead is not parsed again.
    unlessParsedAhead(express.json({ limit: Math.max(config.http.bodyLimitBytes, config.ingestion.bodyLimitBytes) })),
    limitBatch(limits.maxBatch),
    keptResults.keptAnswers((req, res) => accessFor(res.locals.auth as Authentication | undefined, req.ip), options.checks),
    expressMiddleware(apollo, { context: async ({ req, res }) => createContext(res.locals.requestId as string, res.locals.auth as Authentication | undefined, req.ip) }),
  );
  const transport: Transport = {
    name: 'graphql-http',
    publicRoutes: config.graphql.graphiql ? [graphiqlRouter({ authMode: config.auth.mode, examples: options.checks.listedOperations })] : [],
    apiPaths: ['/graphql'],
    routes: [graphqlRoutes],
    paths: ['/graphql', '/graphiql'],
    // /graphql takes bodies up to the larger limit (ingest batches), so that is the one a refusal names.
    errorHandlers: [
      graphqlBodyErrorHandler(
        config.ingestion.bodyLimitBytes >= config.http.bodyLimitBytes
          ? { bytes: config.ingestion.bodyLimitBytes, setting: 'INGEST_BODY_LIMIT' }
          : { bytes: config.http.bodyLimitBytes, setting: 'REQUEST_BODY_LIMIT' },
      ),
    ],
    stop: () => apollo.stop(),
  };
  /** For the fast path, which must decide about kept answers as the middleware does. */
  return { ...transport, keptAnswerFor: keptResults.keptAnswerFor };
}

/**
 * A /graphql body that cannot be read (not JSON, too large, an unsupported charset or content
 * encoding, a compressed body that does not decompress) gets a GraphQL-shaped error, not an HTML
 * page nor the REST envelope.
 */
function graphqlBodyErrorHandler(bodyLimit: { bytes: number; setting: string }) {
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
