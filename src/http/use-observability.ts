// One structured log line and one metrics observation per request, with the request scope that
// puts the request id on every other log line written meanwhile. Mount right after useRequestId.
//
// Names a request by what it ran, never by its raw path: the REST router tags `res.locals.apiId`,
// the GraphQL plugin below names the operation, and everything else gets a fixed route name.
// The query string is never logged (signed links carry their signature there), nor are headers.
import type { ApolloServerPlugin } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { OperationDefinitionNode } from 'graphql';
import type { GatewayContext } from '../context.js';
import { classifyGraphQLError } from '../graphql/errors.js';
import type { Logger } from '../logger.js';
import { EMBEDDED_LINK_PREFIX } from '../platform/object-store/embedded.js';
import { currentRequestScope, enterRequestScope, type RequestScope } from '../request-scope.js';
import type { GatewayMetrics, LiveTransport, SubscriptionOutcome, Transport } from '../telemetry/metrics.js';
import { endRequestSpan, subscriptionSpan } from '../telemetry/tracing.js';
import type { Authentication, Caller } from '../auth/access.js';

export interface ObservabilityOptions {
  logger: Logger;
  metrics: GatewayMetrics;
}

/** Fixed names of the routes that are neither REST entries nor GraphQL operations. */
const FIXED_ROUTES: [prefix: string, name: string][] = [
  ['/healthz', 'healthz'],
  ['/readyz', 'readyz'],
  ['/metrics', 'metrics'],
  ['/openapi.json', 'openapi'],
  ['/docs', 'docs'],
  ['/graphiql', 'graphiql'],
  ['/prometheus', 'prometheus'],
  ['/api/prometheus/grafana', 'grafana-rules'],
  [EMBEDDED_LINK_PREFIX, 'object-store'],
];

function routeName(path: string): string {
  for (const [prefix, name] of FIXED_ROUTES) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return name;
  }
  return 'unmatched';
}

/** What a request is named in its log line and its metrics, read when it ends. */
export interface ObservedRequest {
  transport: Transport;
  operation: string;
  /** A REST entry's path template. */
  route?: string;
  /** The dataset a REST call names in its path. */
  datasetId?: string;
  /** The failure envelope's code, when a REST call failed. */
  errorCode?: string;
  /** A 503 that is meant (a stopping gateway's readiness): logged as information, not as a failure. */
  expectedUnavailable?: boolean;
  /** Why it failed: the code answered, the downstream it failed on, the cause (src/request-failure.ts). */
  failure?: RequestScope['failure'];
  /** How the caller authenticated (api-key, jwt, session), or anonymous: never who, for its span. */
  callerKind?: string;
  /** Answered by the kept-answer door. */
  keptAnswer?: boolean;
}

function describe(req: Request, res: Response, scope: RequestScope): ObservedRequest {
  const callerKind = (res.locals.auth as Authentication | undefined)?.caller?.via;
  return { ...name(req, res, scope), ...(scope.failure ? { failure: scope.failure } : {}), ...(callerKind ? { callerKind } : {}) };
}

function name(req: Request, res: Response, scope: RequestScope): ObservedRequest {
  const { route, datasetId, errorCode, expectedUnavailable } = res.locals as { route?: string; datasetId?: string; errorCode?: string; expectedUnavailable?: boolean };
  const apiId = res.locals.apiId as string | undefined;
  if (apiId) return { transport: 'rest', operation: apiId, route, datasetId, errorCode, expectedUnavailable };
  const path = req.originalUrl.split('?')[0] ?? '';
  if (path === '/graphql' || path.startsWith('/graphql/')) {
    // GET /graphql from a browser is the GraphiQL page, not an operation.
    if (scope.graphqlOperation) return { transport: 'graphql', operation: scope.graphqlOperation, expectedUnavailable };
    return req.method === 'GET' && res.getHeader('content-type')?.toString().startsWith('text/html')
      ? { transport: 'http', operation: 'graphiql', expectedUnavailable }
      : { transport: 'graphql', operation: 'unresolved', expectedUnavailable };
  }
  return { transport: 'http', operation: routeName(path), expectedUnavailable };
}

/**
 * The one observation of a request, for the express stack and the fast path (fast-path.ts) alike:
 * when the response ends (or its connection closes first), one metrics observation and one log line.
 */
export function requestObserver({ logger, metrics }: ObservabilityOptions) {
  return (req: IncomingMessage, res: ServerResponse, requestId: string, started: bigint, names: () => ObservedRequest): void => {
    const url = req.url ?? '/';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const aborted = !res.writableFinished;
      const observed = names();
      const method = req.method ?? 'GET';
      metrics.observeRequest(observed.transport, observed.operation, method, res.statusCode, seconds, observed.route, observed.datasetId);
      if (observed.transport === 'rest' && observed.errorCode) metrics.restFailure(observed.operation, observed.errorCode);
      endRequestSpan(req, {
        requestId,
        transport: observed.transport,
        operation: observed.operation,
        status: res.statusCode,
        seconds,
        route: observed.route,
        callerKind: observed.callerKind,
        errorCode: observed.failure?.code ?? observed.errorCode,
        fastPath: observed.keptAnswer,
      });
      // A stopping gateway's readiness answers 503 on purpose (health.ts marks it): not a failure.
      const failed = res.statusCode >= 500 && !observed.expectedUnavailable;
      if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
      const query = url.indexOf('?');
      const line = {
        requestId,
        method,
        path: query < 0 ? url : url.slice(0, query),
        transport: observed.transport,
        operation: observed.operation,
        status: res.statusCode,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        ...(aborted ? { aborted: true } : {}),
        ...(observed.failure ?? (observed.errorCode ? { code: observed.errorCode } : {})),
      };
      if (failed) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    };
    res.once('finish', finish);
    res.once('close', finish);
  };
}

export function useObservability(options: ObservabilityOptions) {
  const observe = requestObserver(options);
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = res.locals.requestId as string;
    const scope: RequestScope = { requestId };
    enterRequestScope(scope);
    observe(req, res, requestId, started, () => describe(req, res, scope));
    next();
  };
}

const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** The label of an operation: its name when it has a sensible one (capped in number), else a fixed word. */
export function operationLabel(metrics: GatewayMetrics, operationName: string | null | undefined, operation?: OperationDefinitionNode): string {
  const name = operationName ?? operation?.name?.value;
  if (!name) return 'anonymous';
  if (!OPERATION_NAME.test(name)) return 'invalid_name';
  return metrics.operations.value(name);
}

/** Error codes GraphQL itself answers with (parse, validation, variables); anything else is ours or masked. */
const GRAPHQL_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** Names the operation for the request log and metrics; counts the errors of each response by code. */
export function graphqlObservabilityPlugin(metrics: GatewayMetrics): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      let label = 'unresolved';
      return {
        async didResolveOperation({ operationName, operation }) {
          label = operationLabel(metrics, operationName, operation);
          const scope = currentRequestScope();
          if (scope) scope.graphqlOperation = label;
        },
        async didEncounterErrors({ errors }) {
          for (const error of errors) {
            const classified = classifyGraphQLError(error);
            const given = error.extensions?.code;
            const code =
              classified.kind === 'gateway'
                ? classified.error.code
                : classified.kind === 'unexpected'
                  ? 'INTERNAL_SERVER_ERROR'
                  : typeof given === 'string' && GRAPHQL_CODES.has(given)
                    ? given
                    : 'BAD_REQUEST';
            metrics.graphqlError(label, code);
          }
        },
      };
    },
  };
}

/** One subscription's observation: named once its document is known, counted while it runs, logged when it ends. */
export interface SubscriptionObservation {
  readonly requestId: string;
  /** Names it by its operation (the log line and the metrics' `operation` label). */
  named(operationName: string | null | undefined, operation?: OperationDefinitionNode): void;
  /** Admitted and joined to its evaluation. */
  started(): void;
  /** One result sent to it. */
  sent(): void;
  /** Ended (refused before it ran, or after it ran): the metrics and the log line; later calls do nothing. */
  ended(outcome: SubscriptionOutcome, errorCodes?: readonly string[]): void;
}

/**
 * The observation of subscriptions, as useObservability's of requests: a request id, a log line when
 * one starts and when it ends (caller, operation, duration, results sent, how it ended) and metrics.
 */
export function subscriptionObserver({ logger, metrics }: ObservabilityOptions) {
  return (transport: LiveTransport, requestId: string, caller: Caller | undefined, upgradeHeaders?: IncomingHttpHeaders): SubscriptionObservation => {
    const began = process.hrtime.bigint();
    const span = subscriptionSpan(transport, requestId, caller?.via ?? 'anonymous', upgradeHeaders);
    let operation = 'unresolved';
    let running = false;
    let done = false;
    let messages = 0;
    return {
      requestId,
      named(operationName, definition) {
        operation = operationLabel(metrics, operationName, definition);
        span.named(operation);
      },
      started() {
        running = true;
        metrics.subscriptionStarted(transport);
        logger.info({ requestId, transport, operation, caller: caller?.id ?? 'anonymous' }, 'subscription started');
      },
      sent() {
        messages += 1;
      },
      ended(outcome, errorCodes = []) {
        if (done) return;
        done = true;
        metrics.subscriptionEnded(transport, operation, outcome, messages, errorCodes, running);
        span.ended(outcome, messages, errorCodes);
        const line = {
          requestId,
          transport,
          operation,
          caller: caller?.id ?? 'anonymous',
          outcome,
          durationMs: Math.round(Number(process.hrtime.bigint() - began) / 1e3) / 1e3,
          messages,
          ...(errorCodes.length > 0 ? { errorCodes } : {}),
        };
        if (outcome === 'failed') logger.error(line, 'subscription ended');
        else logger.info(line, outcome === 'refused' ? 'subscription refused' : 'subscription ended');
      },
    };
  };
}
