// Prometheus metrics (prom-client), served at GET /metrics. Labels are bounded by construction:
// API ids and GraphQL operation names (capped), status classes, stages and error codes from closed
// sets; never ids, sizes or paths. Dataset ids are the one id-like label ("by dataset"), capped too.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { EventBus } from '../platform/event-bus/event-bus.js';
import { FastHistogram, FastValues } from './request-series.js';

/** The label a value gets once a label has seen its maximum of distinct values. */
export const OVERFLOW_LABEL = '_other';

/** Keeps a label's set of values bounded: the first `max` values seen keep their name, later ones share one. */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  /** The value to use for `value`, admitting it when there is room (and `admit` is true). */
  value(value: string, admit = true): string {
    if (this.seen.has(value)) return value;
    if (admit && this.seen.size < this.max) {
      this.seen.add(value);
      return value;
    }
    return OVERFLOW_LABEL;
  }
}

export type Transport = 'rest' | 'graphql' | 'http';

/** The transports subscriptions run on. */
export type LiveTransport = 'graphql-ws' | 'graphql-sse';

/** How a subscription ended: refused before it ran, its stream ended, its client left, dropped as too slow a reader, or failed. */
export type SubscriptionOutcome = 'refused' | 'completed' | 'closed' | 'dropped' | 'failed';

/**
 * Told of every ingestion count as it happens. Declared here, by the metrics that implement it, so
 * telemetry (a layer under the modules) imports no module: the ingestion counters import this type.
 */
export interface IngestionObserver {
  accepted(datasetId: string, outcome: { accepted: number; processed?: number; duplicates?: number; failed?: number }): void;
  rejected(datasetId: string): void;
}

const REQUEST_LABELS = ['transport', 'operation', 'method', 'status_class'];
const API_CALL_LABELS = ['entity', 'id', 'endpoint', 'dataset_id', 'status'];
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
/** Every status code's text, made once. */
const STATUS_TEXTS = Array.from({ length: 600 }, (_, status) => String(status));

/** The original's API entities (its node_* series), by API id; any other REST call is management. */
const ENTITIES: Record<string, string> = {
  'api.data.in': 'data-in',
  'api.data.out': 'data-out',
  'api.query.template.query': 'data-out',
  'api.obsrv.data.sql-query': 'data-out',
  'api.data.exhaust': 'data-out',
};

export interface MetricsOptions {
  version: string;
  /** Most datasets with a label of their own; later ones are counted under `_other`. */
  maxDatasetLabels?: number;
  /** Most GraphQL operation names with a label of their own. */
  maxOperationLabels?: number;
}

// Process metrics (CPU, memory, event loop, GC) are per process, not per gateway: collected once
// into their own registry and merged into each gateway's output.
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export class GatewayMetrics {
  readonly registry = new Registry();

  readonly operations: BoundedLabel;

  private readonly datasets: BoundedLabel;

  // Recorded on every request, so without allocating (request-series.ts).
  private readonly requestDuration: FastHistogram;
  private readonly requests = new FastValues(REQUEST_LABELS);
  private readonly restFailures: Counter<'api_id' | 'code'>;

  private readonly graphqlErrors: Counter<'operation' | 'code'>;

  private readonly subscriptions: Counter<'transport' | 'operation' | 'outcome'>;
  private readonly subscriptionsOpen: Gauge<'transport'>;
  private readonly subscriptionMessages: Counter<'transport' | 'operation'>;
  private readonly subscriptionErrors: Counter<'transport' | 'operation' | 'code'>;

  private readonly ingestionEvents: Counter<'dataset' | 'stage'>;

  private readonly ingestionRequests: Counter<'dataset' | 'outcome'>;

  private readonly sharedSamplings: Counter;
  private readonly ruleEvaluations: Counter;

  // The original's series, which the console's dashboards query (see the constructor).
  private readonly apiCalls: Record<'total' | 'failed' | 'success', FastValues> = {
    total: new FastValues(API_CALL_LABELS),
    failed: new FastValues(API_CALL_LABELS),
    success: new FastValues(API_CALL_LABELS),
  };
  private readonly apiResponseTime = new FastValues(API_CALL_LABELS);
  private readonly fastPathAnswers = new FastValues(['transport']);

  constructor(options: MetricsOptions) {
    processMetrics();
    this.operations = new BoundedLabel(options.maxOperationLabels ?? 200);
    this.datasets = new BoundedLabel(options.maxDatasetLabels ?? 500);
    const registers = [this.registry];
    new Gauge({ name: 'gateway_info', help: 'Always 1; the version label says which gateway answers.', labelNames: ['version'], registers }).set({ version: options.version }, 1);
    this.requestDuration = new FastHistogram(
      'gateway_http_request_duration_seconds',
      'Time from receiving a request to the end of its response, by API id (REST) or operation name (GraphQL).',
      REQUEST_LABELS,
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      this.registry,
    );
    const requests = this.requests;
    new Counter({
      name: 'gateway_http_requests_total',
      help: 'Requests answered, by API id (REST) or operation name (GraphQL) and status class.',
      labelNames: REQUEST_LABELS,
      registers,
      collect() {
        requests.copyInto(this);
      },
    });
    this.graphqlErrors = new Counter({
      name: 'gateway_graphql_errors_total',
      help: 'Errors in responses of POST /graphql, by operation and error catalogue code (REST failures show in the status class).',
      labelNames: ['operation', 'code'],
      registers,
    });
    this.subscriptions = new Counter({
      name: 'gateway_subscriptions_total',
      help: 'Subscriptions over graphql-ws and SSE that ended, by transport, operation name and outcome (refused, completed: its stream ended, closed: the client left, dropped: too slow a reader, failed).',
      labelNames: ['transport', 'operation', 'outcome'],
      registers,
    });
    this.subscriptionsOpen = new Gauge({ name: 'gateway_subscriptions_open', help: 'Subscriptions running now, by transport.', labelNames: ['transport'], registers });
    this.subscriptionMessages = new Counter({
      name: 'gateway_subscription_messages_total',
      help: 'Results sent to subscribers (one per subscriber per event), by transport and operation name.',
      labelNames: ['transport', 'operation'],
      registers,
    });
    this.subscriptionErrors = new Counter({
      name: 'gateway_subscription_errors_total',
      help: 'Errors subscriptions were refused or ended with, by transport, operation and error catalogue code.',
      labelNames: ['transport', 'operation', 'code'],
      registers,
    });
    this.restFailures = new Counter({
      name: 'gateway_rest_failures_total',
      help: 'Failure envelopes of the REST layer, by API id and error catalogue code.',
      labelNames: ['api_id', 'code'],
      registers,
    });
    this.ingestionEvents = new Counter({
      name: 'gateway_ingestion_events_total',
      help: 'Ingested events by dataset and stage: received (accepted), processed, duplicate, failed.',
      labelNames: ['dataset', 'stage'],
      registers,
    });
    this.ingestionRequests = new Counter({
      name: 'gateway_ingestion_requests_total',
      help: 'Ingest calls by dataset and outcome (accepted, rejected: not Live, unknown or without a topic).',
      labelNames: ['dataset', 'outcome'],
      registers,
    });
    this.sharedSamplings = new Counter({
      name: 'gateway_metrics_shared_samplings_total',
      help: "Samplings of the database's shared series (ingestion counters) this gateway wrote into the embedded metrics store while it held the sampler's lease.",
      registers,
    });
    this.ruleEvaluations = new Counter({
      name: 'gateway_alert_rule_evaluations_total',
      help: 'Alert rule evaluations this gateway made (each due rule is claimed by one gateway: the sum over gateways is one per rule and interval).',
      registers,
    });
    const apiCalls = this.apiCalls;
    const apiCounter = (name: string, help: string, values: FastValues) =>
      new Counter({
        name,
        help,
        labelNames: API_CALL_LABELS,
        registers,
        collect() {
          values.copyInto(this);
        },
      });
    apiCounter(
      'node_total_api_calls',
      "REST calls, by entity (data-in, data-out, management), API id, route, dataset and HTTP status (the original service's series, which the console's dashboards read).",
      apiCalls.total,
    );
    apiCounter('node_failed_api_calls', 'REST calls answered with a failure, labelled as node_total_api_calls.', apiCalls.failed);
    apiCounter('node_success_api_calls', 'REST calls answered with success, labelled as node_total_api_calls.', apiCalls.success);
    const fastPathAnswers = this.fastPathAnswers;
    new Counter({
      name: 'gateway_fast_path_answers_total',
      help: 'Answers the fast path served from the published cache before the express stack (FAST_PATH), by transport; they are counted in gateway_http_requests_total too.',
      labelNames: ['transport'],
      registers,
      collect() {
        fastPathAnswers.copyInto(this);
      },
    });
    const responseTime = this.apiResponseTime;
    new Gauge({
      name: 'node_query_response_time',
      help: 'Milliseconds the last REST call of each label set took, labelled as node_total_api_calls.',
      labelNames: API_CALL_LABELS,
      registers,
      collect() {
        responseTime.copyInto(this);
      },
    });
  }

  /**
   * One answered request: `operation` is its API id, GraphQL operation name or fixed route name;
   * `route` a REST entry's path template (never the raw path), `datasetId` the dataset its path names.
   */
  observeRequest(transport: Transport, operation: string, method: string, status: number, seconds: number, route?: string, datasetId?: string): void {
    const knownMethod = METHODS.has(method) ? method : 'OTHER';
    const statusClass = STATUS_CLASSES[Math.trunc(status / 100)] ?? 'other';
    this.requestDuration.record(seconds, transport, operation, knownMethod, statusClass);
    this.requests.add(1, transport, operation, knownMethod, statusClass);
    if (transport === 'rest' && route) {
      const success = status < 400;
      // Unlike the original (raw URL, request and response sizes), every label here is bounded.
      const entity = ENTITIES[operation] ?? 'management';
      const dataset = datasetId ? this.datasets.value(datasetId, success) : '';
      const statusText = STATUS_TEXTS[status] ?? String(status);
      this.apiCalls.total.add(1, entity, operation, route, dataset, statusText);
      this.apiCalls[success ? 'success' : 'failed'].add(1, entity, operation, route, dataset, statusText);
      this.apiResponseTime.set(seconds * 1000, entity, operation, route, dataset, statusText);
    }
  }

  sharedSamplingWritten(): void {
    this.sharedSamplings.inc();
  }

  alertRuleEvaluated(): void {
    this.ruleEvaluations.inc();
  }

  /** One answer served by the fast path (src/http/fast-path.ts). */
  fastPathAnswer(transport: 'rest' | 'graphql'): void {
    this.fastPathAnswers.add(1, transport);
  }

  restFailure(apiId: string, code: string): void {
    this.restFailures.inc({ api_id: apiId, code });
  }

  graphqlError(operation: string, code: string): void {
    this.graphqlErrors.inc({ operation, code });
  }

  /** A subscription admitted and running. */
  subscriptionStarted(transport: LiveTransport): void {
    this.subscriptionsOpen.inc({ transport });
  }

  /** A subscription that ended (`started`: it had been counted by subscriptionStarted), with the results it was sent and its errors' codes. */
  subscriptionEnded(transport: LiveTransport, operation: string, outcome: SubscriptionOutcome, messages: number, errorCodes: readonly string[], started: boolean): void {
    if (started) this.subscriptionsOpen.dec({ transport });
    this.subscriptions.inc({ transport, operation, outcome });
    if (messages > 0) this.subscriptionMessages.inc({ transport, operation }, messages);
    for (const code of errorCodes) this.subscriptionErrors.inc({ transport, operation, code });
  }

  /** Feeds ingestion counts in; a dataset earns a label of its own only once it has accepted events. */
  readonly ingestion: IngestionObserver = {
    accepted: (datasetId, outcome) => {
      const dataset = this.datasets.value(datasetId);
      this.ingestionRequests.inc({ dataset, outcome: 'accepted' });
      this.ingestionEvents.inc({ dataset, stage: 'received' }, outcome.accepted);
      this.ingestionEvents.inc({ dataset, stage: 'processed' }, outcome.processed ?? outcome.accepted);
      this.ingestionEvents.inc({ dataset, stage: 'duplicate' }, outcome.duplicates ?? 0);
      this.ingestionEvents.inc({ dataset, stage: 'failed' }, outcome.failed ?? 0);
    },
    // Rejected calls may name datasets that do not exist: they never admit a new label.
    rejected: (datasetId) => this.ingestionRequests.inc({ dataset: this.datasets.value(datasetId, false), outcome: 'rejected' }),
  };

  /** Pool gauges, read at scrape time. */
  watchDatabasePool(pool: pg.Pool): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('gateway_db_pool_clients', 'Connections the database pool holds (idle and in use).', () => pool.totalCount);
    gauge('gateway_db_pool_idle_clients', 'Connections of the pool waiting for work.', () => pool.idleCount);
    gauge('gateway_db_pool_waiting_requests', 'Queries waiting for a free connection.', () => pool.waitingCount);
    gauge('gateway_db_pool_max_clients', 'Most connections the pool may open (DB_POOL_MAX).', () => pool.options.max ?? 10);
  }

  /**
   * The resumable streams' shared tail readers (one per stream and gateway): the streams they feed now,
   * and the readings of the change log they made, one per batch of new changes whatever the number
   * of subscribers (what keeps 10,000 subscribers from costing 10,000 queries per change).
   */
  watchChangeStreams(tails: () => readonly { stream: string; subscribers: number; reads: number }[]): void {
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_change_stream_readers',
      help: 'Evaluations of a resumable stream (subscribers asking the very same stream share one) handed its new changes by its shared tail reader, by stream.',
      labelNames: ['stream'],
      registers,
      collect() {
        for (const tail of tails()) this.set({ stream: tail.stream }, tail.subscribers);
      },
    });
    new Counter({
      name: 'gateway_change_log_tail_reads_total',
      help: "Readings of a stream's change log by its shared tail reader (one per batch of new changes, whatever the number of subscribers), by stream.",
      labelNames: ['stream'],
      registers,
      collect() {
        this.reset();
        for (const tail of tails()) this.inc({ stream: tail.stream }, tail.reads);
      },
    });
  }

  /**
   * Live queries' readings caused by a committed change: the change's wait for LIVE_QUERY_MIN_INTERVAL_MS
   * (a design bound: up to the interval) and the reading until its answer was handed to every
   * subscriber (the gateway's own work). What an operator needs to tell a slow gateway from the interval.
   */
  liveQueryReadingObserver(): (timing: { heldMs: number; readMs: number }) => void {
    const registers = [this.registry];
    const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 5];
    const held = new Histogram({
      name: 'gateway_live_query_hold_seconds',
      help: 'From a committed change reaching the gateway to the start of the live-query reading it causes (LIVE_QUERY_MIN_INTERVAL_MS).',
      buckets,
      registers,
    });
    const read = new Histogram({
      name: 'gateway_live_query_reading_seconds',
      help: 'From a live-query reading’s start until its answer was handed to every subscriber of the shared evaluation.',
      buckets,
      registers,
    });
    return ({ heldMs, readMs }) => {
      held.observe(heldMs / 1000);
      read.observe(readMs / 1000);
    };
  }

  /** Producer gauges of an event bus that reports them (Kafka), read at scrape time. */
  watchEventBus(bus: EventBus): void {
    const stats = bus.stats?.bind(bus);
    if (!stats) return;
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_event_bus_queued_messages',
      help: 'Ingest messages waiting for the next produce call.',
      registers,
      collect() {
        this.set(stats().queuedMessages);
      },
    });
    new Gauge({
      name: 'gateway_event_bus_in_flight_batches',
      help: 'Produce calls sent and not yet acknowledged by the broker.',
      registers,
      collect() {
        this.set(stats().inFlightBatches);
      },
    });
    new Gauge({
      name: 'gateway_event_bus_connected',
      help: '1 while the producer holds a connection to the brokers.',
      registers,
      collect() {
        this.set(stats().connected ? 1 : 0);
      },
    });
    new Counter({
      name: 'gateway_event_bus_failed_batches_total',
      help: 'Produce calls the broker refused or did not acknowledge in time.',
      registers,
      collect() {
        this.reset();
        this.inc(stats().failedBatches);
      },
    });
  }

  contentType(): string {
    return this.registry.contentType;
  }

  /** Every series with its value (this gateway's and the process's): what the embedded metrics store samples. */
  async snapshot() {
    return Registry.merge([this.registry, processMetrics()]).getMetricsAsJSON();
  }

  /** The exposition text: this gateway's series plus the process's. */
  async render(): Promise<string> {
    return Registry.merge([this.registry, processMetrics()]).metrics();
  }
}
