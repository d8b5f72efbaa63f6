// Subscriptions' transports: GraphQL over WebSocket (graphql-ws, subprotocol graphql-transport-ws)
// on the /graphql upgrade, and GraphQL over Server-Sent Events (graphql-sse, distinct connections
// mode) on /graphql/stream. Both authenticate as HTTP does (API key, bearer JWT, session cookie),
// pass each subscription through the same gate (src/modules/live/gate.ts), and hand it to the shared
// evaluations (multiplexer.ts), whose serialised results are written to every socket as they are
// (subscription-socket.ts). Close codes beyond graphql-ws's own: 4403 when the credential expires,
// 4429 when a subscriber falls LIVE_QUEUE_CAPACITY events behind; an SSE stream that falls behind
// gets a last event with RATE_LIMITED, then `complete`, and is closed.
import type http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Request, type Response } from 'express';
import { GraphQLError, type ExecutionResult, type FormattedExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/express';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Authentication, Caller, RequestAccess } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { Logger } from '../logger.js';
import type { LiveGate, PreparedSubscription } from '../modules/live/index.js';
import {
  CHANGE_STREAM_FIELDS,
  formatLiveResult,
  resumedAt,
  type ErrorFormatter,
  type EvaluationAccess,
  type LiveSubscriber,
  type Membership,
  type SharedResult,
  type SharedSubscriptions,
} from '../modules/live/index.js';
import { SocketSubscription } from './subscription-socket.js';
import { requestIdFor } from './use-request-id.js';
import { operationLabel, type subscriptionObserver, type SubscriptionObservation } from './use-observability.js';
import type { GatewayMetrics, SubscriptionOutcome } from '../telemetry/metrics.js';
import { currentRequestScope } from '../request-scope.js';

export const WS_PATH = '/graphql';
export const SSE_PATH = '/graphql/stream';

/** graphql-ws's own codes, and ours. */
export const CLOSE_FORBIDDEN = 4403;
export const CLOSE_SLOW_CONSUMER = 4429;

/** Largest WebSocket frame or SSE request body taken (a subscription document with its variables). */
const MAX_MESSAGE_BYTES = 256 * 1024;
const CONNECTION_INIT_WAIT_MS = 10_000;
/** setTimeout's longest delay; a credential valid for longer is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SubscriptionTransportOptions {
  httpServer: http.Server;
  schema: GraphQLSchema;
  authenticator: Authenticator;
  accessFor(authentication: Authentication, clientAddress: string | undefined): RequestAccess;
  /** The access a subscription's shared evaluation runs with: its caller's, never the gateway's own. */
  evaluationAccess(authentication: Authentication, clientAddress: string | undefined): EvaluationAccess;
  gate: LiveGate;
  shared: SharedSubscriptions;
  /** Events a subscriber may fall behind by before it is dropped (LIVE_QUEUE_CAPACITY). */
  queueCapacity: number;
  keepAliveMs: number;
  /** Shapes errors as the HTTP endpoint does (codes kept, unexpected ones masked). */
  formatError: ErrorFormatter;
  logger: Logger;
  /** Each subscription's request id, log lines and metrics (use-observability.ts). */
  observe: ReturnType<typeof subscriptionObserver>;
  /** Operation names as the metrics label them. */
  metrics: GatewayMetrics;
}

/** What a subscription carries from its gate to its shared evaluation. */
type LiveOperationContext<S> = { subscriber: S } & Record<string, unknown>;

interface ConnectionState {
  headers: IncomingHttpHeaders;
  address: string | undefined;
  access: RequestAccess;
  held: Map<string, () => void>;
  expiryTimer?: NodeJS.Timeout;
}

/** The upgrade request's headers, with the credentials connection_init's payload carries (browsers cannot set WebSocket headers). */
function credentialHeaders(request: http.IncomingMessage, params: Readonly<Record<string, unknown>> | undefined): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { ...request.headers };
  for (const [name, value] of Object.entries(params ?? {})) {
    const lower = name.toLowerCase();
    if ((lower === 'authorization' || lower === 'x-api-key') && typeof value === 'string') headers[lower] = value;
  }
  return headers;
}

function sseRefusal(errors: readonly GraphQLError[], status: number): [string, { status: number; statusText: string; headers: Record<string, string> }] {
  return [
    JSON.stringify({ errors: errors.map((error) => error.toJSON()) }),
    {
      status,
      statusText: status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 429 ? 'Too Many Requests' : 'Bad Request',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
  ];
}

const STATUS_OF_KIND: Record<string, number> = { UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, CONFLICT: 409, TOO_MANY_REQUESTS: 429, SERVICE_UNAVAILABLE: 503 };

/** The codes of errors, as the metrics count them. */
function codesOf(errors: readonly (GraphQLError | GraphQLFormattedError)[]): string[] {
  return errors.map((error) => {
    const code = error.extensions?.code;
    return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
  });
}

/** A formatted error as graphql-ws and graphql-sse send refusals (their errors are GraphQLErrors). */
function asGraphQLError(formatted: GraphQLFormattedError): GraphQLError {
  return new GraphQLError(formatted.message, { path: formatted.path, extensions: formatted.extensions });
}

function statusOf(errors: readonly GraphQLError[]): number {
  return STATUS_OF_KIND[String(errors[0]?.extensions?.responseCode)] ?? 400;
}

function refusedAuthentication(authentication: Authentication): GraphQLError | undefined {
  if (authentication.failure) return new GraphQLError(authentication.failure.message, { extensions: { code: authentication.failure.code, responseCode: authentication.failure.kind } });
  if (!authentication.caller)
    return new GraphQLError('Authentication is required: send a bearer token, the session cookie or an API key.', { extensions: { code: 'UNAUTHENTICATED', responseCode: 'UNAUTHORIZED' } });
  return undefined;
}

/** How long a dropped consumer gets to take its close frame before its socket is cut (it is not reading, so usually it cannot). */
const SLOW_CONSUMER_GRACE_MS = 1_000;

const SLOW_CONSUMER_MESSAGE = 'Slow consumer: too many events not yet read';

function dropSlowConsumer(socket: WebSocket): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.close(CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_MESSAGE);
  setTimeout(() => socket.terminate(), SLOW_CONSUMER_GRACE_MS).unref();
}

/** The SSE equivalent of 4429: a last `next` event saying why (RATE_LIMITED) and `complete`; the response is cut a second later. */
const SLOW_STREAM_EVENTS =
  `event: next\ndata: ${JSON.stringify({ errors: [{ message: `${SLOW_CONSUMER_MESSAGE}; the stream is closed`, extensions: { code: 'RATE_LIMITED', responseCode: 'TOO_MANY_REQUESTS' } }] })}\n\n` +
  'event: complete\ndata: \n\n';

/** Responses cut as slow consumers: the failure of their last writes is expected, not logged. */
const droppedStreams = new WeakSet<Response>();

function dropSlowStream(res: Response): void {
  if (res.writableEnded || res.destroyed || droppedStreams.has(res)) return;
  droppedStreams.add(res);
  res.write(SLOW_STREAM_EVENTS);
  setTimeout(() => res.destroy(), SLOW_CONSUMER_GRACE_MS).unref();
}

const EVENT_OPENING = Buffer.from('event: next\ndata: ');

/** An event's SSE id: a resumable stream's endCursor (what the client's Last-Event-ID gives back on a reconnect), when selected. */
function eventIdOf(result: SharedResult): string | undefined {
  const data = result.result.data as Record<string, { endCursor?: unknown } | null | undefined> | null | undefined;
  if (!data) return undefined;
  for (const field of CHANGE_STREAM_FIELDS) {
    const endCursor = data[field]?.endCursor;
    if (typeof endCursor === 'string') return endCursor;
  }
  return undefined;
}
const EVENT_CLOSING = Buffer.from('\n\n');

/**
 * An SSE subscription's deliveries, written straight to its response (graphql-sse would read its
 * stream into a queue of its own without bound): the shared result's bytes as a `next` event; the
 * events not yet handed to the kernel are its queue, one more than `capacity` drops it. graphql-sse
 * reads this object as the operation's stream, which yields nothing and ends with the subscription.
 */
class StreamSubscription implements LiveSubscriber, AsyncIterableIterator<never> {
  private unflushed = 0;
  /** Results that came before the response's head was written (written once it is). */
  private early: SharedResult[] = [];
  private ended = false;
  private membership: Membership | undefined;
  private wake: ((result: IteratorReturnResult<undefined>) => void) | undefined;

  constructor(
    private readonly res: Response,
    private readonly capacity: number,
    private readonly onOverflow: () => void,
    private readonly observation: Pick<SubscriptionObservation, 'sent' | 'ended'>,
  ) {}

  joined(membership: Membership): void {
    if (this.ended) membership.leave();
    else this.membership = membership;
  }

  deliver(result: SharedResult): void {
    if (this.ended || this.res.writableEnded || this.res.destroyed) return;
    if (this.unflushed + this.early.length >= this.capacity) {
      this.end('dropped');
      this.onOverflow();
      return;
    }
    this.observation.sent();
    if (!this.res.headersSent) {
      this.early.push(result);
      if (this.early.length === 1) setImmediate(this.writeEarly);
      return;
    }
    this.write(result);
  }

  private readonly writeEarly = (): void => {
    if (this.ended || this.res.destroyed) return;
    if (!this.res.headersSent) {
      setImmediate(this.writeEarly);
      return;
    }
    for (const result of this.early.splice(0)) this.write(result);
  };

  private write(result: SharedResult): void {
    this.unflushed += 1;
    const id = eventIdOf(result);
    this.res.write(Buffer.concat([id === undefined ? EVENT_OPENING : Buffer.from(`id: ${id}\nevent: next\ndata: `), result.json, EVENT_CLOSING]), this.flushed);
  }

  private readonly flushed = (): void => {
    this.unflushed -= 1;
  };

  /** Ends it: its evaluation ended (completed, failed), it fell behind (dropped) or its client left (closed). */
  end(outcome: SubscriptionOutcome = 'completed'): void {
    if (this.ended) return;
    this.ended = true;
    this.observation.ended(outcome);
    this.early = [];
    this.membership?.leave();
    this.membership = undefined;
    this.wake?.({ value: undefined, done: true });
    this.wake = undefined;
  }

  next(): Promise<IteratorResult<never>> {
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.wake = resolve));
  }

  return(): Promise<IteratorResult<never>> {
    this.end('closed');
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<never> {
    return this;
  }
}

export function serveSubscriptions(options: SubscriptionTransportOptions) {
  const { gate, shared, authenticator } = options;
  /** Subscriptions admitted and joined to their evaluation since start. */
  let started = 0;
  // A result answered at subscribe (not a stream) is shaped here; shared results arrive shaped (multiplexer.ts).
  const format = (result: ExecutionResult): FormattedExecutionResult | undefined => (result.errors ? formatLiveResult(result, options.formatError) : undefined);
  /**
   * Joins the shared evaluation before the subscription is answered, so arguments its source refuses
   * (an unknown dataset, an expression that does not parse) refuse the subscription with the code its
   * query twin gives: the refusal's errors, shaped as the HTTP endpoint shapes them; nothing when joined.
   */
  const join = async (
    prepared: PreparedSubscription,
    evaluation: EvaluationAccess,
    subscriber: LiveSubscriber & { joined(membership: Membership): void },
    observation: SubscriptionObservation,
  ): Promise<GraphQLFormattedError[] | undefined> => {
    let joined: Membership | ExecutionResult;
    try {
      joined = await shared.subscribe(prepared.document, prepared.operationName, prepared.variables, evaluation, subscriber);
    } catch (error) {
      options.logger.error({ err: error, requestId: observation.requestId }, 'subscription could not start');
      joined = { errors: [error instanceof GraphQLError ? error : new GraphQLError('the subscription could not start', { originalError: error as Error })] };
    }
    if ('leave' in joined) {
      subscriber.joined(joined);
      observation.started();
      started += 1;
      return undefined;
    }
    const errors = format(joined)?.errors ?? [{ message: 'the subscription answered no stream', extensions: { code: 'INTERNAL_SERVER_ERROR' } }];
    observation.ended('refused', codesOf(errors));
    return [...errors];
  };
  /** Refuses a subscription before it runs: logged and counted, and the errors to answer with. */
  const refuse = <E extends GraphQLError>(observation: SubscriptionObservation, errors: E[]): E[] => {
    observation.ended('refused', codesOf(errors));
    return errors;
  };

  // ---- WebSocket ----
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const states = new WeakMap<object, ConnectionState>();
  const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    connectionIds.set(request, requestIdFor(request.headers));
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  // Each connection has a request id (the caller's x-request-id, or a new one), echoed on the upgrade's
  // answer; each of its subscriptions is `<connection id>:<subscription id>` in the logs.
  const connectionIds = new WeakMap<http.IncomingMessage, string>();
  wss.on('headers', (headers, request) => headers.push(`x-request-id: ${connectionIds.get(request) ?? ''}`));
  options.httpServer.on('upgrade', onUpgrade);

  const releaseAll = (state: ConnectionState | undefined) => {
    if (!state) return;
    clearTimeout(state.expiryTimer);
    for (const release of state.held.values()) release();
    state.held.clear();
  };

  /** Looks at the credential again when it expires: still valid, wait for its next expiry; else close 4403. */
  const watchExpiry = (state: ConnectionState, caller: Caller, socket: WebSocket, again = false) => {
    if (caller.expiresAt === undefined) return;
    // Looking again at a credential that still holds past its expiry waits a second, not a busy loop.
    const wait = Math.min(Math.max(again ? 1_000 : 0, caller.expiresAt - Date.now()), MAX_TIMER_MS);
    state.expiryTimer = setTimeout(() => {
      void Promise.resolve(authenticator.authenticate(state.headers)).then((again) => {
        if (refusedAuthentication(again) || !again.caller) {
          socket.close(CLOSE_FORBIDDEN, 'Forbidden: the credential expired');
          return;
        }
        state.access = options.accessFor(again, state.address);
        watchExpiry(state, again.caller, socket, true);
      });
    }, wait);
    state.expiryTimer.unref();
  };

  type Extra = { socket: WebSocket; request: http.IncomingMessage };
  const protocol = makeServer<Record<string, unknown>, Extra>({
    schema: options.schema,
    // A client has this long after opening to send connection_init (graphql-ws's 3 s is short for a busy client).
    connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
    onConnect: async (ctx) => {
      const headers = credentialHeaders(ctx.extra.request, ctx.connectionParams);
      const authentication = await authenticator.authenticate(headers);
      if (refusedAuthentication(authentication)) return false;
      const address = ctx.extra.request.socket.remoteAddress;
      const state: ConnectionState = { headers, address, access: options.accessFor(authentication, address), held: new Map() };
      states.set(ctx, state);
      watchExpiry(state, authentication.caller!, ctx.extra.socket);
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      const state = states.get(ctx);
      if (!state) return [new GraphQLError('the connection is not acknowledged', { extensions: { code: 'UNAUTHENTICATED' } })];
      const connectionId = connectionIds.get(ctx.extra.request) ?? 'ws';
      const observation = options.observe('graphql-ws', `${connectionId}:${/^[A-Za-z0-9._:-]{1,64}$/.test(id) ? id : 'subscription'}`, state.access.caller, ctx.extra.request.headers);
      const prepared = await gate.prepare(state.access, payload);
      if (Array.isArray(prepared)) return refuse(observation, prepared);
      observation.named(prepared.operationName, prepared.operation);
      const release = gate.acquire(state.access.caller, state.held.size);
      if (release instanceof GraphQLError) return refuse(observation, [release]);
      state.held.set(id, release);
      const socket = ctx.extra.socket;
      const subscriber = new SocketSubscription(socket, id, options.queueCapacity, () => dropSlowConsumer(socket), observation);
      const refused = await join(prepared, options.evaluationAccess(state.access.authentication, state.address), subscriber, observation);
      if (refused) {
        release();
        state.held.delete(id);
        return refused.map(asGraphQLError);
      }
      const contextValue: LiveOperationContext<SocketSubscription> = { subscriber };
      return { schema: options.schema, document: prepared.document, operationName: prepared.operationName, variableValues: prepared.variables, contextValue };
    },
    // The subscriber, joined already, is sent its results directly (subscription-socket.ts); graphql-ws completes it when its stream ends.
    subscribe: async (args) => (args.contextValue as LiveOperationContext<SocketSubscription>).subscriber as never,
    onComplete: (ctx, id) => {
      const state = states.get(ctx);
      state?.held.get(id)?.();
      state?.held.delete(id);
    },
    onClose: (ctx) => releaseAll(states.get(ctx)),
  });

  /** One WebSocket: graphql-ws's protocol over it, pings while it is open (a client that does not answer one in time is cut). */
  const openConnection = (socket: WebSocket, request: http.IncomingMessage) => {
    const internalError = (error: unknown) => {
      options.logger.error({ err: error }, 'subscription socket failed');
      if (socket.readyState === socket.OPEN) socket.close(CloseCode.InternalServerError, 'Internal server error');
    };
    socket.once('error', internalError);
    let pongWait: NodeJS.Timeout | undefined;
    const pings =
      options.keepAliveMs > 0
        ? setInterval(() => {
            if (socket.readyState !== socket.OPEN || pongWait) return;
            pongWait = setTimeout(() => socket.terminate(), options.keepAliveMs);
            socket.ping();
          }, options.keepAliveMs)
        : undefined;
    socket.on('pong', () => {
      clearTimeout(pongWait);
      pongWait = undefined;
    });
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data: Buffer) => {
            Promise.resolve(handle(String(data))).catch(internalError);
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(pings);
      void closed(code, String(reason));
    });
  };
  wss.options.handleProtocols = handleProtocols;
  wss.on('connection', openConnection);

  // ---- Server-Sent Events ----
  /** SSE handlers in flight: a stream counts until graphql-sse has finished with its response. */
  let streams = 0;
  const openStreams = new Set<Response>();
  const sse = createSseHandler<LiveOperationContext<StreamSubscription>>({
    schema: options.schema,
    // Distinct connections mode only: each event stream is one subscription, authenticated on its own.
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      const raw = req.raw as Request;
      const res = req.context.res;
      const authentication = await authenticator.authenticate(raw.headers);
      const observation = options.observe('graphql-sse', (res.locals.requestId as string | undefined) ?? requestIdFor(raw.headers), authentication.caller);
      const refused = refusedAuthentication(authentication);
      if (refused) return sseRefusal(refuse(observation, [refused]), statusOf([refused]));
      let prepared = await gate.prepare(options.accessFor(authentication, raw.ip), params);
      if (Array.isArray(prepared)) return sseRefusal(refuse(observation, prepared), statusOf(prepared));
      // A reconnecting event stream resumes a resumable stream where it got to (the last event's id).
      const lastEventId = raw.headers['last-event-id'];
      if (typeof lastEventId === 'string' && lastEventId !== '') prepared = resumedAt(prepared, lastEventId);
      observation.named(prepared.operationName, prepared.operation);
      // The request's own log line (useObservability) names the operation too.
      const scope = currentRequestScope();
      if (scope) scope.graphqlOperation = operationLabel(options.metrics, prepared.operationName, prepared.operation);
      const release = gate.acquire(authentication.caller, 0);
      if (release instanceof GraphQLError) return sseRefusal(refuse(observation, [release]), 429);
      const subscriber = new StreamSubscription(res, options.queueCapacity, () => dropSlowStream(res), observation);
      const joinRefused = await join(prepared, options.evaluationAccess(authentication, raw.ip), subscriber, observation);
      if (joinRefused) {
        release();
        const errors = joinRefused.map(asGraphQLError);
        return sseRefusal(errors, statusOf(errors));
      }
      openStreams.add(res);
      res.once('close', () => {
        openStreams.delete(res);
        subscriber.end('closed');
        release();
      });
      return { schema: options.schema, document: prepared.document, operationName: prepared.operationName, variableValues: prepared.variables, contextValue: { subscriber } };
    },
    // The subscriber, joined already, writes its results to the response itself (StreamSubscription).
    subscribe: async (args) => args.contextValue.subscriber as never,
  });
  const sseRouter = express.Router();
  sseRouter.use(SSE_PATH, express.json({ limit: MAX_MESSAGE_BYTES }), (req, res, next) => {
    streams += 1;
    Promise.resolve(sse(req, res))
      .catch((error: unknown) => {
        // A write failing on a response cut as a slow consumer is no failure of ours.
        if (droppedStreams.has(res)) return;
        options.logger.error({ err: error }, 'subscription stream failed');
        if (!res.headersSent) next(error);
        else res.destroy();
      })
      .finally(() => (streams -= 1));
  });

  return {
    sseRouter,
    /** Open WebSocket connections and SSE streams, evaluations running, and subscriptions started since the gateway did (each answered only once it runs). */
    stats: () => ({ webSockets: wss.clients.size, streams, evaluations: shared.activeEvaluations, started }),
    async close(): Promise<void> {
      options.httpServer.off('upgrade', onUpgrade);
      for (const res of openStreams) res.end();
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
