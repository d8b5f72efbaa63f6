// The operation pipeline: every guarantee an operation gets (its request id, trace, limits, access, rate,
// cache, error shape, log and metrics), in the order it is applied, and for each door an operation
// comes in by, the code that applies it there, or why it does not apply. A policy that does not say
// what it does at every door does not compile (`at` is a record of every Entry), and
// test/graphql/pipeline.test.ts checks that each piece of code named here exists, so this table
// cannot drift from the code without a test failing. docs/architecture.md's "One operation pipeline" table is
// generated from it.
//
// How it runs: each door registers through one interface (src/transports/transport.ts), and
// src/server.ts mounts them all alike, behind the request id, security headers, CORS, log and
// metrics every request gets and the timeout and authentication every API path gets. The checks of
// a caller's own document (limits, introspection, cost, persisted operations) and the admission to
// a kept answer are one object, OperationChecks (operation-checks.ts), which every door that takes
// such a document calls at the point its engine knows the operation: Apollo's plugin hook, the
// live gate, the kept-answer door. Execution: the HTTP doors (Apollo's and REST's) run the
// pipeline's compiled executor (compiled-execution.ts); the subscription doors keep graphql-js's.
// The behaviour each guarantee promises is checked door by door by the tests named in `checkedBy`.

/** The doors an operation comes in by. */
export const ENTRIES = {
  'graphql-http': 'POST and GET /graphql (express, then Apollo Server)',
  rest: 'the REST table at /v2, /alerts/v1, ... (each entry a GraphQL operation, run by rest/router.ts)',
  'graphql-ws': 'subscriptions over WebSocket (graphql-ws) on /graphql',
  'graphql-sse': 'subscriptions over Server-Sent Events (graphql-sse) on /graphql/stream',
  'kept-answer': 'a kept answer: the kept-answer door in front of express (src/transports/kept-answer.ts), or the kept-answer middleware in front of Apollo',
} as const;

export type Entry = keyof typeof ENTRIES;

/** A piece of code: `path/to/file.ts#name`, where `name` is a function, class, method or constant the file defines. */
export type CodeReference = `${string}.ts#${string}`;

/** How a policy applies at one door: the code that applies it, or why it does not apply there. */
export type Application = { by: readonly CodeReference[] } | { skipped: string };

export interface OperationPolicy {
  name: string;
  /** What a caller can count on. */
  guarantee: string;
  at: Readonly<Record<Entry, Application>>;
  /** Test files that show the guarantee holds at each door where it applies. */
  checkedBy: readonly string[];
}

export const OPERATION_PIPELINE: readonly OperationPolicy[] = [
  {
    name: 'request id',
    guarantee: "The caller's x-request-id (when it looks like one) or a new one, echoed, on every log line of the request.",
    at: {
      'graphql-http': { by: ['src/http/use-request-id.ts#useRequestId'] },
      rest: { by: ['src/http/use-request-id.ts#useRequestId'] },
      'graphql-ws': { by: ['src/http/use-request-id.ts#requestIdFor', 'src/http/use-subscriptions.ts#serveSubscriptions'] },
      'graphql-sse': { by: ['src/http/use-request-id.ts#useRequestId'] },
      'kept-answer': { by: ['src/http/use-request-id.ts#requestIdFor'] },
    },
    checkedBy: ['test/http/request-logs.test.ts', 'test/graphql/subscription-requests.test.ts', 'test/http/fast-path.test.ts'],
  },
  {
    name: 'trace',
    guarantee:
      "With OpenTelemetry on (OTEL_EXPORTER_OTLP_ENDPOINT), one span per request or subscription, continuing the caller's W3C traceparent, named by the operation it ran, with its request id, transport, API id and caller kind; PostgreSQL, Kafka, S3 and HTTP downstream calls are its children. Off: nothing is loaded.",
    at: {
      'graphql-http': { by: ['src/telemetry/tracing.ts#tracedRequests', 'src/telemetry/tracing.ts#endRequestSpan'] },
      rest: { by: ['src/telemetry/tracing.ts#tracedRequests', 'src/telemetry/tracing.ts#endRequestSpan'] },
      'graphql-ws': { by: ['src/telemetry/tracing.ts#subscriptionSpan', 'src/http/use-observability.ts#subscriptionObserver'] },
      'graphql-sse': { by: ['src/telemetry/tracing.ts#tracedRequests', 'src/telemetry/tracing.ts#subscriptionSpan'] },
      'kept-answer': { by: ['src/telemetry/tracing.ts#tracedRequests', 'src/telemetry/tracing.ts#endRequestSpan'] },
    },
    checkedBy: ['test/platform/open-telemetry.test.ts'],
  },
  {
    name: 'read the body',
    guarantee: 'A bounded body, read and parsed once; an unreadable one is refused with a message naming what is wrong.',
    at: {
      'graphql-http': { by: ['src/http/body-read-ahead.ts#unlessParsedAhead'] },
      rest: { by: ['rest/router.ts#createRestRouter', 'src/http/body-read-ahead.ts#unlessParsedAhead'] },
      'graphql-ws': { by: ['src/http/use-subscriptions.ts#serveSubscriptions'] },
      'graphql-sse': { by: ['src/http/use-subscriptions.ts#serveSubscriptions'] },
      'kept-answer': { by: ['src/http/fast-path.ts#withFastPath', 'src/http/body-read-ahead.ts#handOnParsedBody'] },
    },
    checkedBy: ['test/graphql/parse-once.test.ts', 'test/http/caller-faults.test.ts', 'test/rest/json-limits.test.ts'],
  },
  {
    name: 'parse, validate and limits',
    guarantee:
      'The document parses, fits the schema, and stays within GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_ALIASES; its literals and variables within JSON_MAX_STRING_LENGTH and JSON_MAX_ARRAY_LENGTH.',
    at: {
      'graphql-http': { by: ['src/graphql/pipeline/operation-checks.ts#limitRules', 'src/graphql/pipeline/operation-checks.ts#check'] },
      rest: { skipped: "each entry's operation is the gateway's own, parsed and validated once at start-up (rest/router.ts); its body's JSON limits are checked as it is read" },
      'graphql-ws': { by: ['src/graphql/pipeline/operation-checks.ts#documentOf', 'src/graphql/pipeline/operation-checks.ts#check'] },
      'graphql-sse': { by: ['src/graphql/pipeline/operation-checks.ts#documentOf', 'src/graphql/pipeline/operation-checks.ts#check'] },
      'kept-answer': { skipped: 'an answer is kept only for a document that passed them, keyed by its exact text' },
    },
    checkedBy: ['test/graphql/limits.test.ts', 'test/graphql/subscription-guard.test.ts'],
  },
  {
    name: 'cost',
    guarantee: 'An operation priced above GRAPHQL_MAX_COST is refused before it runs; its price is what it pays from the rate limit.',
    at: {
      'graphql-http': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/limits.ts#priceOperation'] },
      rest: { skipped: "each entry's operation is the gateway's own, bounded by the entry's own page limits" },
      'graphql-ws': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/limits.ts#priceOperation'] },
      'graphql-sse': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/limits.ts#priceOperation'] },
      'kept-answer': { by: ['src/graphql/pipeline/operation-checks.ts#admitToKeptAnswer'] },
    },
    checkedBy: ['test/graphql/validation-cost.test.ts', 'test/graphql/count-cost.test.ts', 'test/graphql/subscription-guard.test.ts'],
  },
  {
    name: 'persisted operations',
    guarantee: 'A caller named by PERSISTED_OPERATIONS_REQUIRED_FOR runs only the operations of the allow list.',
    at: {
      'graphql-http': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/persisted-operations.ts#persistedOnlyFor'] },
      rest: { skipped: "each entry's operation is the gateway's own, not the caller's text" },
      'graphql-ws': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/persisted-operations.ts#persistedOnlyFor'] },
      'graphql-sse': { by: ['src/graphql/pipeline/operation-checks.ts#check', 'src/graphql/persisted-operations.ts#persistedOnlyFor'] },
      'kept-answer': { by: ['src/graphql/pipeline/operation-checks.ts#admitToKeptAnswer'] },
    },
    checkedBy: ['test/graphql/persisted-operations.test.ts', 'test/graphql/subscription-guard.test.ts', 'test/graphql/published-results.test.ts'],
  },
  {
    name: 'authenticate',
    guarantee:
      'API key, bearer JWT or session cookie, checked by one authenticator; a credential that does not hold is refused (401) whatever the operation asks, public fields included, never treated as anonymous. A request without any is anonymous: public fields only.',
    at: {
      'graphql-http': { by: ['src/transports/transport.ts#mountTransports', 'src/http/use-auth.ts#useAuth', 'src/graphql/pipeline/operation-checks.ts#check'] },
      rest: { by: ['src/transports/transport.ts#mountTransports', 'src/http/use-auth.ts#useAuth', 'src/auth/access.ts#authorize'] },
      'graphql-ws': { by: ['src/http/use-subscriptions.ts#serveSubscriptions'] },
      'graphql-sse': { by: ['src/http/use-subscriptions.ts#serveSubscriptions'] },
      'kept-answer': { by: ['src/transports/kept-answer.ts#withKeptAnswerDoor', 'src/http/fast-path.ts#withFastPath', 'src/auth/access.ts#authorize'] },
    },
    checkedBy: ['test/http/auth-credentials.test.ts', 'test/graphql/subscriptions.test.ts', 'test/http/fast-path.test.ts'],
  },
  {
    name: 'admit',
    guarantee: "Every root field by the API ids its module declares, and every linked type the selection reaches by that type's read ids: the caller's own access, never the gateway's.",
    at: {
      'graphql-http': { by: ['src/auth/guard.ts#guardRootFields', 'src/auth/guard.ts#guardLinks'] },
      rest: { by: ['rest/router.ts#createRestRouter', 'src/auth/guard.ts#guardRootFields', 'src/auth/guard.ts#guardLinks'] },
      'graphql-ws': { by: ['src/modules/live/gate.ts#LiveGate', 'src/auth/guard.ts#guardLinks', 'src/auth/access.ts#accessKeyOf'] },
      'graphql-sse': { by: ['src/modules/live/gate.ts#LiveGate', 'src/auth/guard.ts#guardLinks', 'src/auth/access.ts#accessKeyOf'] },
      'kept-answer': { by: ['src/graphql/pipeline/operation-checks.ts#admitToKeptAnswer', 'src/graphql/published-reads.ts#readPlanner'] },
    },
    checkedBy: ['test/graphql/access-matrix.test.ts', 'test/graphql/subscriptions.test.ts'],
  },
  {
    name: 'rate limit',
    guarantee: "Each caller's budget (RATE_LIMIT_RPS, shared across copies with RATE_LIMIT_STORE=postgres) pays once per request, by its cost; 429 with Retry-After when spent.",
    at: {
      'graphql-http': { by: ['src/auth/access.ts#RequestAccess', 'src/http/limit-anonymous.ts#limitAnonymousGraphQL'] },
      rest: { by: ['src/auth/access.ts#RequestAccess'] },
      'graphql-ws': { by: ['src/modules/live/gate.ts#LiveGate'] },
      'graphql-sse': { by: ['src/modules/live/gate.ts#LiveGate'] },
      'kept-answer': { by: ['src/graphql/pipeline/operation-checks.ts#admitToKeptAnswer', 'src/auth/access.ts#handOn'] },
    },
    checkedBy: ['test/http/rate-limit.test.ts', 'test/http/fast-path.test.ts', 'test/graphql/subscription-guard.test.ts'],
  },
  {
    name: 'cache look-up',
    guarantee: 'A published read is answered from what the published cache keeps, looked up once per request, never older than its last committed change.',
    at: {
      'graphql-http': { by: ['src/graphql/published-results.ts#publishedResults'] },
      rest: { by: ['src/transports/rest.ts#restTransport', 'src/http/kept-reads.ts#KeptReads'] },
      'graphql-ws': { skipped: 'a subscription is evaluated once for all its subscribers of the same access (src/modules/live/multiplexer.ts), not kept' },
      'graphql-sse': { skipped: 'a subscription is evaluated once for all its subscribers of the same access (src/modules/live/multiplexer.ts), not kept' },
      'kept-answer': { by: ['src/graphql/published-results.ts#publishedResults', 'src/http/kept-reads.ts#KeptReads'] },
    },
    checkedBy: ['test/graphql/parse-once.test.ts', 'test/graphql/published-results.test.ts', 'test/http/fast-path.test.ts'],
  },
  {
    name: 'execute',
    guarantee: 'One executable schema, one context factory (caller, loaders, services), the same resolvers; every mutation audited.',
    at: {
      'graphql-http': { by: ['src/context.ts#createContextFactory', 'src/modules/audit/trail.ts#withAuditTrail', 'src/graphql/compiled-execution.ts#compiledExecutor'] },
      rest: { by: ['rest/router.ts#createRestRouter', 'src/context.ts#createContextFactory', 'src/graphql/compiled-execution.ts#compiledExecutor'] },
      'graphql-ws': { by: ['src/modules/live/multiplexer.ts#SharedSubscriptions', 'src/modules/live/context.ts#sharedEvaluationContext'] },
      'graphql-sse': { by: ['src/modules/live/multiplexer.ts#SharedSubscriptions', 'src/modules/live/context.ts#sharedEvaluationContext'] },
      'kept-answer': { skipped: 'the answer was executed once, for a caller admitted alike, and kept' },
    },
    checkedBy: ['test/contract/harness.ts', 'test/graphql/subscriptions.test.ts'],
  },
  {
    name: 'format errors',
    guarantee:
      "The error catalogue's code and kind in extensions (REST: the failure envelope); every error has a code, the same at every door (a variable its type refuses: BAD_USER_INPUT); an unexpected error logged with the request id and masked.",
    at: {
      'graphql-http': { by: ['src/graphql/errors.ts#formatGraphQLError', 'src/graphql/errors.ts#reportUnexpectedError'] },
      rest: { by: ['rest/router.ts#restErrorHandler', 'src/graphql/errors.ts#classifyGraphQLError'] },
      'graphql-ws': { by: ['src/graphql/errors.ts#formatGraphQLError', 'src/graphql/errors.ts#reportUnexpectedError'] },
      'graphql-sse': { by: ['src/graphql/errors.ts#formatGraphQLError', 'src/graphql/errors.ts#reportUnexpectedError'] },
      'kept-answer': { skipped: 'only answers without errors are kept' },
    },
    checkedBy: ['test/rest/bad-input.test.ts', 'test/graphql/subscription-requests.test.ts'],
  },
  {
    name: 'write',
    guarantee: 'Security headers, CORS, the answer serialised once; a subscriber that falls LIVE_QUEUE_CAPACITY behind is dropped, not buffered without bound.',
    at: {
      'graphql-http': { by: ['src/http/use-security-headers.ts#useSecurityHeaders', 'src/http/use-cross-origin.ts#useCrossOrigin'] },
      rest: { by: ['src/http/envelope.ts#successEnvelopeJson', 'src/http/envelope.ts#sendFailure'] },
      'graphql-ws': { by: ['src/http/subscription-socket.ts#SocketSubscription'] },
      'graphql-sse': { by: ['src/http/use-subscriptions.ts#StreamSubscription'] },
      'kept-answer': { by: ['src/http/kept-answer.ts#writeKeptAnswer', 'src/http/kept-answer.ts#writeKeptAnswerAtTurnEnd'] },
    },
    checkedBy: ['test/http/fast-path.test.ts', 'test/graphql/subscriptions.test.ts', 'test/http/cross-site.test.ts'],
  },
  {
    name: 'log and count',
    guarantee: 'One log line per request (per subscription: one when it starts, one when it ends) with its id, caller, operation and duration; metrics by transport and operation.',
    at: {
      'graphql-http': { by: ['src/http/use-observability.ts#useObservability', 'src/http/use-observability.ts#graphqlObservabilityPlugin'] },
      rest: { by: ['src/http/use-observability.ts#useObservability'] },
      'graphql-ws': { by: ['src/http/use-observability.ts#subscriptionObserver'] },
      'graphql-sse': { by: ['src/http/use-observability.ts#subscriptionObserver', 'src/http/use-observability.ts#useObservability'] },
      'kept-answer': { by: ['src/http/use-observability.ts#requestObserver'] },
    },
    checkedBy: ['test/http/request-logs.test.ts', 'test/http/metrics.test.ts', 'test/graphql/subscription-requests.test.ts'],
  },
];

/** The pipeline as a Markdown table for docs/architecture.md: a row per policy, a column per door. */
export function pipelineReadmeTable(): string {
  const entries = Object.keys(ENTRIES) as Entry[];
  const cell = (application: Application) =>
    'skipped' in application ? `— (${application.skipped})` : application.by.map((reference) => `\`${reference.slice(reference.lastIndexOf('/') + 1).replace('.ts#', '` ')}`).join(', ');
  const rows = OPERATION_PIPELINE.map((policy, index) => `| ${index + 1}. ${policy.name} | ${entries.map((entry) => cell(policy.at[entry]).replaceAll('|', '\\|')).join(' | ')} |`);
  return [`| policy | ${entries.join(' | ')} |`, `|---|${entries.map(() => '---').join('|')}|`, ...rows].join('\n');
}
