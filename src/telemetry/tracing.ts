// The operation spans (docs/operating.md "Traces, metrics and logs over OTLP"): one span per request and one per
// subscription, whichever door it came in by, named by what it ran and carrying the request id, the
// transport, the operation, the REST API id and the kind of caller (never the caller's credential).
// The spans of what an operation calls (PostgreSQL, Kafka, S3, Druid, Prometheus) come from
// OpenTelemetry's instrumentations (open-telemetry.ts) as children of these.
//
// Free when off: this file imports nothing of OpenTelemetry at run time (types only). Until
// open-telemetry.ts hands it the API, every function here is one test of a variable.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type * as OpenTelemetryApi from '@opentelemetry/api';

type Api = typeof OpenTelemetryApi;
type Span = OpenTelemetryApi.Span;

interface Tracing {
  api: Api;
  tracer: OpenTelemetryApi.Tracer;
  requestDuration: OpenTelemetryApi.Histogram;
}

let tracing: Tracing | undefined;
/** Each request's span, from its first byte until its response is written (or its connection closes). */
const requestSpans = new WeakMap<IncomingMessage, Span>();

/** Called once by open-telemetry.ts, after the SDK started: from then on requests are traced. */
export function enableTracing(api: Api, version: string): void {
  const meter = api.metrics.getMeter('data-platform-gateway', version);
  tracing = {
    api,
    tracer: api.trace.getTracer('data-platform-gateway', version),
    requestDuration: meter.createHistogram('gateway.request.duration', { unit: 's', description: 'Duration of requests by transport, operation and status code.' }),
  };
}

/** A listener that traces each request it is given, or `listener` itself when tracing is off. */
export function tracedRequests(listener: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!tracing) return listener(req, res);
    const { api, tracer } = tracing;
    // A caller's W3C traceparent (and tracestate) makes this request a step of the caller's trace.
    const parent = api.propagation.extract(api.ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(`${req.method ?? 'GET'}`, { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? 'GET' } }, parent);
    requestSpans.set(req, span);
    const context = api.trace.setSpan(parent, span);
    // Bound so that what runs from the request's own events (its body read) is in the span too.
    api.context.bind(context, req);
    api.context.bind(context, res);
    // A request the observer never names (a refused upgrade, a client gone early) still ends.
    res.once('close', () => setImmediate(() => span.isRecording() && span.end()));
    api.context.with(context, () => listener(req, res));
  };
}

/** What a request ran, as its log line names it (src/http/use-observability.ts). */
export interface NamedRequest {
  requestId: string;
  transport: string;
  operation: string;
  status: number;
  seconds: number;
  route?: string;
  callerKind?: string;
  errorCode?: string;
  fastPath?: boolean;
}

/** Names and ends the request's span once its answer is written, and counts its duration. */
export function endRequestSpan(req: IncomingMessage, named: NamedRequest): void {
  if (!tracing) return;
  const span = requestSpans.get(req);
  const attributes = {
    'gateway.transport': named.transport,
    'gateway.operation': named.operation,
    'http.response.status_code': named.status,
  };
  tracing.requestDuration.record(named.seconds, attributes);
  if (!span?.isRecording()) return;
  span.updateName(`${named.transport} ${named.operation}`);
  span.setAttributes({
    ...attributes,
    'gateway.request_id': named.requestId,
    'gateway.caller.kind': named.callerKind ?? 'anonymous',
    ...(named.transport === 'rest' ? { 'gateway.api_id': named.operation } : {}),
    ...(named.route ? { 'http.route': named.route } : {}),
    ...(named.fastPath ? { 'gateway.kept_answer': true } : {}),
  });
  if (named.status >= 500) span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, ...(named.errorCode ? { message: named.errorCode } : {}) });
  if (named.errorCode) span.setAttribute('error.type', named.errorCode);
  span.end();
}

/** One subscription's span, from its start until it ends. */
export interface SubscriptionSpan {
  named(operation: string): void;
  ended(outcome: string, messages: number, errorCodes: readonly string[]): void;
}

const UNTRACED: SubscriptionSpan = { named() {}, ended() {} };

/**
 * A span for a subscription: a child of the request it came in (SSE), or of the trace the WebSocket
 * upgrade's traceparent names (graphql-ws).
 */
export function subscriptionSpan(transport: string, requestId: string, callerKind: string, upgradeHeaders?: IncomingHttpHeaders): SubscriptionSpan {
  if (!tracing) return UNTRACED;
  const { api, tracer } = tracing;
  const parent = upgradeHeaders ? api.propagation.extract(api.context.active(), upgradeHeaders) : api.context.active();
  const span = tracer.startSpan(
    `${transport} subscription`,
    { kind: api.SpanKind.SERVER, attributes: { 'gateway.transport': transport, 'gateway.request_id': requestId, 'gateway.caller.kind': callerKind } },
    parent,
  );
  return {
    named(operation) {
      span.updateName(`${transport} ${operation}`);
      span.setAttribute('gateway.operation', operation);
    },
    ended(outcome, messages, errorCodes) {
      span.setAttributes({ 'gateway.subscription.outcome': outcome, 'gateway.subscription.messages': messages });
      if (outcome === 'failed') span.setStatus({ code: api.SpanStatusCode.ERROR, ...(errorCodes[0] ? { message: errorCodes[0] } : {}) });
      if (errorCodes[0]) span.setAttribute('error.type', errorCodes[0]);
      span.end();
    },
  };
}

/** The trace and span ids a log line written now carries (the active span's), when tracing is on. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!tracing) return undefined;
  const span = tracing.api.trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
