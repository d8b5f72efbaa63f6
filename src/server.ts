// Composition: database, services, one executable schema, and the HTTP transports around it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { unwrapResolverError } from '@apollo/server/errors';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { createRestRouter, restErrorHandler } from '../rest/router.js';
import { restEndpoints } from '../rest/endpoints.js';
import type { Config } from './config.js';
import { createContextFactory, type GatewayContext, type Services } from './context.js';
import { GENERIC_FAILURE_MESSAGE } from './errors.js';
import { classifyGraphQLError } from './graphql/errors.js';
import { buildSchema } from './graphql/schema.js';
import { graphiqlRouter } from './http/graphiql.js';
import { healthRouter } from './http/health.js';
import { useRequestId } from './http/use-request-id.js';
import type { Logger } from './logger.js';
import { createDatasetService } from './modules/datasets/service.js';
import { IngestionCounters } from './modules/ingestion/counters.js';
import { createIngestionService } from './modules/ingestion/service.js';
import { createDatasetStore } from './modules/datasets/store.js';
import { createSchemaInferenceService } from './modules/schema-inference/service.js';
import { createTemplateRunner } from './modules/templates/run.js';
import { createTemplateService } from './modules/templates/service.js';
import { createTemplateStore } from './modules/templates/store.js';
import { openDatabase, type Database } from './platform/database/database.js';
import { EmbeddedEventStore } from './platform/event-bus/embedded-store.js';
import type { EventBus } from './platform/event-bus/event-bus.js';
import { createKafkaProducer, KafkaEventBus } from './platform/event-bus/kafka.js';
import { DruidQueryEngine } from './platform/query-engine/druid.js';
import { EmbeddedQueryEngine } from './platform/query-engine/embedded.js';
import type { QueryEngine } from './platform/query-engine/query-engine.js';

export const GATEWAY_VERSION = '0.1.0';

export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  database: Database;
  /** Stops taking requests, lets running ones finish, closes the database (and the embedded server). */
  stop(): Promise<void>;
}

function createServices(database: Database, config: Config, platform: { queryEngine: QueryEngine; eventBus: EventBus }): Services {
  const datasets = createDatasetService(createDatasetStore(database.prisma), platform.queryEngine, { listMax: config.datasets.listMax });
  return {
    templates: createTemplateService(createTemplateStore(database.prisma), {
      listMax: config.templates.listMax,
      runner: createTemplateRunner(datasets, platform.queryEngine, { maxRows: config.queryEngine.maxRows }),
    }),
    datasets,
    schemaInference: createSchemaInferenceService(),
    ingestion: createIngestionService(datasets, platform.eventBus, new IngestionCounters(), { maxBatch: config.ingestion.maxBatch }),
  };
}

function createQueryEngine(config: Config, database: Database): QueryEngine {
  const druid = config.queryEngine.druid;
  if (druid) return new DruidQueryEngine({ ...druid, kafkaBrokers: config.ingestion.kafka?.brokers });
  return new EmbeddedQueryEngine(database.pool, { statementTimeoutMs: config.queryEngine.statementTimeoutMs, maxRows: config.queryEngine.maxRows });
}

function createEventBus(config: Config, database: Database, logger: Logger): EventBus {
  const kafka = config.ingestion.kafka;
  if (!kafka) return new EmbeddedEventStore(database.pool);
  return new KafkaEventBus(createKafkaProducer(kafka), kafka, logger);
}

/** Shapes GraphQL errors with the same classification REST uses: ours carry their contract code
 * and kind; unexpected ones are masked. */
function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (!(error instanceof GraphQLError)) return formatted;
  const classified = classifyGraphQLError(error);
  if (classified.kind === 'gateway') {
    const { code, kind, message } = classified.error;
    return { ...formatted, message, extensions: { code, responseCode: kind } };
  }
  if (classified.kind === 'unexpected') {
    return { ...formatted, message: GENERIC_FAILURE_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  return formatted;
}

/** Logs the errors formatGraphQLError masks, with the request id. */
const logUnexpectedErrors: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          const classified = classifyGraphQLError(error);
          if (classified.kind === 'unexpected') contextValue.logger.error({ err: classified.error }, 'unexpected error in GraphQL resolver');
          else if (classified.kind === 'gateway' && classified.error.code === 'DATABASE_UNAVAILABLE') {
            contextValue.logger.warn({ err: unwrapResolverError(error) }, 'database unavailable');
          }
        }
      },
    };
  },
};

export async function startGateway(config: Config, logger: Logger): Promise<Gateway> {
  const database = await openDatabase(config.database, logger);
  try {
    return await serve(config, logger, database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}

async function serve(config: Config, logger: Logger, database: Database): Promise<Gateway> {
  const queryEngine = createQueryEngine(config, database);
  logger.info(`query engine: ${queryEngine.name}`);
  const eventBus = createEventBus(config, database, logger);
  logger.info(`event bus: ${eventBus.name}`);
  const services = createServices(database, config, { queryEngine, eventBus });
  const schema = buildSchema(GATEWAY_VERSION);
  const createContext = createContextFactory(services, logger);

  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);
  // The contract's responses carry `Keep-Alive: timeout=5` (Node's header follows this setting).
  httpServer.keepAliveTimeout = 5_000;

  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: config.graphql.introspection,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    plugins: [ApolloServerPluginDrainHttpServer({ httpServer }), ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled(), logUnexpectedErrors],
  });
  await apollo.start();

  app.use(useRequestId());
  app.use(healthRouter(database));
  if (config.graphql.graphiql) app.use(graphiqlRouter());
  app.use(
    '/graphql',
    // GraphQL carries ingest batches too, so it takes bodies up to the larger of the two limits.
    express.json({ limit: Math.max(config.http.bodyLimitBytes, config.ingestion.bodyLimitBytes) }),
    expressMiddleware(apollo, { context: async ({ res }) => createContext(res.locals.requestId as string) }),
  );
  const rest = createRestRouter({
    schema,
    endpoints: restEndpoints,
    createContext,
    logger,
    bodyLimitBytes: config.http.bodyLimitBytes,
    largeBodyLimitBytes: config.ingestion.bodyLimitBytes,
  });
  app.use(rest);
  app.use(graphqlBodyErrorHandler);
  app.use(restErrorHandler(logger));

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;

  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    database,
    stop() {
      stopping ??= (async () => {
        await apollo.stop();
        await eventBus.close();
        await database.close();
      })();
      return stopping;
    },
  };
}

/** A /graphql body that is not JSON (or too large) gets a GraphQL-shaped error, not an HTML page. */
function graphqlBodyErrorHandler(error: unknown, req: Request, res: Response, next: NextFunction) {
  const type = (error as { type?: unknown })?.type;
  if (!req.path.startsWith('/graphql') || typeof type !== 'string' || res.headersSent) return next(error);
  const status = (error as { status?: number }).status ?? 400;
  const message = type === 'entity.too.large' ? 'the request body is too large' : `the request body is not valid JSON: ${(error as Error).message}`;
  res.status(status).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
}
