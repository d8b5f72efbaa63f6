// The live door: subscriptions over graphql-ws (the /graphql upgrade) and graphql-sse
// (/graphql/stream), wired to the same schema, authenticator, access control, limits and persisted
// operations as the HTTP door (docs/architecture.md "One operation pipeline"). Each shared evaluation runs with
// its subscribers' access (one access key) without spending their rate-limit tokens; errors are
// shaped as HTTP's, and an unexpected one is logged as Apollo's plugin logs it.
import type http from 'node:http';
import type { DocumentNode, GraphQLError, GraphQLFormattedError, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { AccessControl } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { Config } from '../config.js';
import { createContextFactory, type Services } from '../context.js';
import { formatGraphQLError, reportUnexpectedError } from '../graphql/errors.js';
import type { OperationChecks } from '../graphql/pipeline/operation-checks.js';
import type { ReadPlanner } from '../graphql/published-reads.js';
import { subscriptionObserver } from '../http/use-observability.js';
import { serveSubscriptions, SSE_PATH } from '../http/use-subscriptions.js';
import type { Logger } from '../logger.js';
import { CHANGE_STREAM_FIELDS, LiveGate, SharedSubscriptions, sharedEvaluationContext, subscribedFields } from '../modules/live/index.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { Transport } from './transport.js';

export interface LiveTransportOptions {
  httpServer: http.Server;
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
  metrics: GatewayMetrics;
  accessControl: AccessControl;
  authenticator: Authenticator;
  apiIdsByField: ReadonlyMap<string, readonly string[]>;
  checks: OperationChecks;
  /** What a query's answer is made of (the kept answers' planner): a live query is read again when it changes. */
  planOf: ReadPlanner;
  live: Config['live'];
}

/** How often a live query whose answer no table announces (metrics, or figures kept no time) is read again. */
const UNANNOUNCED_REFRESH_MS = 5_000;

export function startLiveTransport(options: LiveTransportOptions): Transport & { stats: ReturnType<typeof serveSubscriptions>['stats'] } {
  const { schema, logger, metrics, accessControl, live } = options;
  const formatLiveError = (formatted: GraphQLFormattedError, error: GraphQLError): GraphQLFormattedError => {
    reportUnexpectedError(logger, error);
    return formatGraphQLError(formatted, error);
  };
  const evaluationContext = createContextFactory(options.services, logger, accessControl.withoutRateLimits());
  const liveQueries = {
    minIntervalMs: live.liveQueryMinIntervalMs,
    readsOf: (document: DocumentNode, operation: OperationDefinitionNode) => {
      const plan = options.planOf(document, operation);
      if (!plan) return { tables: null, refreshMs: UNANNOUNCED_REFRESH_MS };
      return plan.maxAgeMs === undefined ? { tables: plan.tables } : { tables: plan.tables, refreshMs: Math.max(plan.maxAgeMs, live.liveQueryMinIntervalMs) };
    },
  };
  const subscriptions = serveSubscriptions({
    httpServer: options.httpServer,
    schema,
    authenticator: options.authenticator,
    accessFor: (authentication, address) => accessControl.forRequest(authentication, address),
    evaluationAccess: ({ caller }, address) => ({
      key: accessControl.accessKeyOf(caller),
      context: () => sharedEvaluationContext((requestId) => evaluationContext(requestId, { caller }, address), liveQueries),
    }),
    gate: new LiveGate({
      checks: options.checks,
      apiIdsByField: options.apiIdsByField,
      maxPerConnection: live.maxPerConnection,
      maxPerCaller: live.maxPerCaller,
    }),
    shared: new SharedSubscriptions({
      schema,
      formatError: formatLiveError,
      // A stream that starts at its cursor (or at now) is shared only until its first page is out.
      startsWithSnapshot: (document) => subscribedFields(document).some((field) => field === 'metricSeries' || (CHANGE_STREAM_FIELDS as readonly string[]).includes(field)),
      deliversChangesOnly: (document) => subscribedFields(document).includes('live'),
    }),
    queueCapacity: live.queueCapacity,
    keepAliveMs: live.keepAliveMs,
    formatError: formatLiveError,
    logger,
    observe: subscriptionObserver({ logger, metrics }),
    metrics,
  });
  // The streams last as long as their subscription: public routes, in front of the request timeout.
  return { name: 'live', publicRoutes: [subscriptions.sseRouter], paths: [SSE_PATH], stop: () => subscriptions.close(), stats: subscriptions.stats };
}
