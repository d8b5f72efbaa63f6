// The one error catalogue. Every failure the API reports is a GatewayError with a code from this
// table; the code fixes its kind (the envelope's responseCode), and the kind fixes the HTTP status.
// GraphQL shows code and kind in `extensions`; the REST layer turns them into the failure envelope.

export const ERROR_KINDS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  FAILED: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export const ERROR_CATALOGUE = {
  // Cross-cutting
  INVALID_INPUT: 'BAD_REQUEST',
  ROUTE_NOT_FOUND: 'NOT_FOUND',
  // HTTP 405 with Allow (STATUS_OVERRIDES): the path is served, with other methods
  METHOD_NOT_ALLOWED: 'BAD_REQUEST',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  DATABASE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  REQUEST_TIMEOUT: 'SERVICE_UNAVAILABLE',
  REQUEST_BODY_TIMEOUT: 'REQUEST_TIMEOUT',
  // Access: no or bad credentials, a role without the API id, too many calls
  UNAUTHENTICATED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  QUERY_COST_OVER_RATE_LIMIT: 'TOO_MANY_REQUESTS',
  PERSISTED_OPERATION_REQUIRED: 'FORBIDDEN',
  // Query templates (contract 4.3, 7)
  QUERY_TEMPLATE_INVALID: 'BAD_REQUEST',
  QUERY_TEMPLATE_INVALID_INPUT: 'BAD_REQUEST',
  QUERY_TEMPLATE_ALREADY_EXISTS: 'CONFLICT',
  QUERY_TEMPLATE_NOT_EXISTS: 'NOT_FOUND',
  // Schema inference (contract 4.1 dataschema)
  DATA_SCHEMA_INVALID_INPUT: 'BAD_REQUEST',
  // Datasets (contract 3, 4.1, 7)
  DATASET_NOT_FOUND: 'NOT_FOUND',
  DATASET_NOT_EXISTS: 'NOT_FOUND',
  DATASET_INVALID_FIELDS: 'BAD_REQUEST',
  DATASET_READ_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_LIST_INPUT_INVALID: 'BAD_REQUEST',
  DATASET_COPY_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_STATUS_TRANSITION_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_HEALTH_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_EXPORT_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_EXPORT_FAILURE: 'BAD_REQUEST',
  DATASET_IMPORT_INVALID_CONFIGS: 'BAD_REQUEST',
  DATASET_EXISTS: 'CONFLICT',
  DATASET_ALREADY_EXISTS: 'CONFLICT',
  DATASET_LIVE_FAILURE: 'BAD_REQUEST',
  DATASET_READYTOPUBLISH_FAILURE: 'BAD_REQUEST',
  DATASET_RETIRE_FAILURE: 'BAD_REQUEST',
  DATASET_CONFIGS_INVALID: 'BAD_REQUEST',
  DATASET_IN_USE: 'BAD_REQUEST',
  // Authoring drafts (create, update)
  DATASET_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_UPDATE_INPUT_INVALID: 'BAD_REQUEST',
  DATASET_UPDATE_NO_FIELDS: 'BAD_REQUEST',
  DATASET_OUTDATED: 'CONFLICT',
  DATASET_NOT_IN_DRAFT_STATE_TO_UPDATE: 'BAD_REQUEST',
  DATASET_DUPLICATE_DENORM_KEY: 'BAD_REQUEST',
  SCHEMA_VALIDATOR_INVALID_INPUT: 'BAD_REQUEST',
  // Ad-hoc queries (DATA_OUT_* above) and the raw SQL endpoint
  SQL_QUERY_EMPTY_REQUEST: 'BAD_REQUEST',
  SQL_QUERY_FAILURE: 'BAD_REQUEST',
  DATA_EXHAUST_INVALID_INPUT: 'BAD_REQUEST',
  DATA_EXHAUST_NO_FILES: 'NOT_FOUND',
  // Dashboard metrics: a request Prometheus's API would refuse (400), or a Prometheus that failed
  DATA_METRICS_INVALID_INPUT: 'BAD_REQUEST',
  DATA_METRICS_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  // Datasources, aliases, reset
  DATASET_ALIAS_INPUT_INVALID: 'BAD_REQUEST',
  ALIAS_NAME_INVALID: 'BAD_REQUEST',
  ALIAS_NOT_UNIQUE: 'BAD_REQUEST',
  TABLE_NOT_EXISTS: 'NOT_FOUND',
  DATASOURCE_LIST_INPUT_INVALID: 'BAD_REQUEST',
  DATASET_RESET_INPUT_INVALID: 'BAD_REQUEST',
  DEPENDENT_MASTER_DATA_NOT_LIVE: 'BAD_REQUEST',
  SELF_REFERENCING_MASTER_DATA: 'BAD_REQUEST',
  // Ingestion (contract 4.2, 7)
  DATA_INGESTION_INVALID_INPUT: 'BAD_REQUEST',
  TOPIC_NOT_FOUND: 'BAD_REQUEST',
  EVENT_BUS_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  // Running templates (contract 4.3, 7)
  DATA_OUT_INVALID_INPUT: 'BAD_REQUEST',
  DATA_OUT_INVALID_DATE_RANGE: 'BAD_REQUEST',
  DATA_OUT_SOURCE_NOT_FOUND: 'NOT_FOUND',
  DATA_OUT_QUERY_FAILED: 'INTERNAL_SERVER_ERROR',
  DATA_OUT_QUERY_TIMEOUT: 'SERVICE_UNAVAILABLE',
  // Dataset metrics (contract 4.1, 7): DATA_OUT_INVALID_INPUT above, and a source failure
  FAILED_TO_FETCH_METRICS: 'FAILED',
  // PII analysis (contract 4.2, 7): the downstream detector failed (its status in the message)
  DATA_ANALYZE_PII_INVALID_INPUT: 'BAD_REQUEST',
  ERR_BAD_REQUEST: 'INTERNAL_SERVER_ERROR',
  // Connectors (contract 4.4, 7)
  CONNECTORS_LIST_INPUT_INVALID: 'BAD_REQUEST',
  CONNECTOR_READ_INVALID_INPUT: 'BAD_REQUEST',
  CONNECTOR_NOT_FOUND: 'NOT_FOUND',
  FAILED_TO_REGISTER_CONNECTOR: 'INTERNAL_SERVER_ERROR',
  FAILED_TO_UPLOAD: 'BAD_REQUEST',
  // Files (contract 4.5, 7)
  FILES_GENERATE_URL_INPUT_INVALID: 'BAD_REQUEST',
  FILES_URL_GENERATION_LIMIT_EXCEED: 'BAD_REQUEST',
  FILES_GENERATE_URL_FAILURE: 'INTERNAL_SERVER_ERROR',
  // Jobs (src/modules/jobs): long work run in the background
  JOB_INVALID_INPUT: 'BAD_REQUEST',
  JOB_NOT_FOUND: 'NOT_FOUND',
  JOB_ALREADY_FINISHED: 'CONFLICT',
  // Alerting (contract 4.6; the original answered every failure here with INTERNAL_SERVER_ERROR)
  SILENCE_INVALID_INPUT: 'BAD_REQUEST',
  SILENCE_NOT_FOUND: 'NOT_FOUND',
  SILENCE_CONFLICT: 'CONFLICT',
  METRIC_ALIAS_INVALID_INPUT: 'BAD_REQUEST',
  METRIC_ALIAS_ALREADY_EXISTS: 'CONFLICT',
  METRIC_ALIAS_NOT_FOUND: 'NOT_FOUND',
  NOTIFICATION_CHANNEL_INVALID_INPUT: 'BAD_REQUEST',
  NOTIFICATION_CHANNEL_ALREADY_EXISTS: 'CONFLICT',
  NOTIFICATION_CHANNEL_NOT_FOUND: 'NOT_FOUND',
  ALERT_RULE_INVALID_INPUT: 'BAD_REQUEST',
  ALERT_RULE_ALREADY_EXISTS: 'CONFLICT',
  ALERT_RULE_NOT_FOUND: 'NOT_FOUND',
  // Publishing a live channel, or a change that lost a race with another one
  NOTIFICATION_CHANNEL_CONFLICT: 'CONFLICT',
  // A retired channel is kept for the record; it cannot be published or changed again
  NOTIFICATION_CHANNEL_RETIRED: 'BAD_REQUEST',
  ALERT_MANAGER_FAILED: 'FAILED',
  NOTIFICATION_FAILED: 'FAILED',
  // The graph's identity: a global id this gateway did not make, or too many at once
  NODE_ID_INVALID: 'BAD_REQUEST',
  NODES_LIMIT_EXCEEDED: 'BAD_REQUEST',
  // Search across the graph: a query, filter or page size it cannot take, a cursor it did not give
  SEARCH_INVALID_INPUT: 'BAD_REQUEST',
  SEARCH_CURSOR_INVALID: 'BAD_REQUEST',
  // Lineage: a depth outside 1..5
  LINEAGE_INVALID_INPUT: 'BAD_REQUEST',
  // History: a page size out of bounds, or a cursor its history did not give
  HISTORY_INVALID_INPUT: 'BAD_REQUEST',
  // Resumable streams: a cursor the stream did not give, or one older than the change log keeps
  CHANGE_CURSOR_INVALID: 'BAD_REQUEST',
  CHANGE_CURSOR_EXPIRED: 'BAD_REQUEST',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Codes whose HTTP status is not their kind's, wherever they are answered: an alert manager, SMTP
 * server or webhook that refused or did not answer is a 502 (bad gateway): the request was fine and
 * the gateway is up; the system behind it failed. A code one REST route shows otherwise (ingestion's
 * lookups) says so in that route's entry (rest/table.ts errorPresentation), not here. */
const STATUS_OVERRIDES: Partial<Record<ErrorCode, number>> = { ALERT_MANAGER_FAILED: 502, NOTIFICATION_FAILED: 502, METHOD_NOT_ALLOWED: 405 };

export interface GatewayErrorOptions {
  /** An HTTP status other than the kind's, for a failure the transport itself met (e.g. a request express refused). */
  httpStatus?: number;
  /** Response headers that go with the failure (e.g. Retry-After of RATE_LIMITED). */
  headers?: Readonly<Record<string, string>>;
  /** The system outside the gateway the request failed on (e.g. "object store: S3 bucket uploads at ..."), for the log. */
  downstream?: string;
  /** What failed underneath, kept for the request's log line. */
  cause?: unknown;
}

/**
 * One piece of a message: text, or the name of a field of the caller's input. A message that names
 * fields is kept in pieces so that each transport names them as its callers do (GraphQL in the
 * domain's names, REST in the contract's: rest/ passes its rename table to `messageNaming`).
 */
export type MessagePart = string | { readonly field: string };

/** A field's name inside a message (see MessagePart). */
export const field = (name: string): MessagePart => ({ field: name });

/** The message with each field named by `names` (a field it does not list keeps its own name). */
export function messageText(parts: readonly MessagePart[], names: Readonly<Record<string, string>> = {}): string {
  return parts.map((part) => (typeof part === 'string' ? part : (names[part.field] ?? part.field))).join('');
}

export class GatewayError extends Error {
  readonly kind: ErrorKind;

  /** The message in pieces, when it names fields of the caller's input. */
  readonly parts?: readonly MessagePart[];

  readonly httpStatus: number;

  readonly headers?: Readonly<Record<string, string>>;

  readonly downstream?: string;

  constructor(
    readonly code: ErrorCode,
    message: string | readonly MessagePart[],
    options: GatewayErrorOptions = {},
  ) {
    super(typeof message === 'string' ? message : messageText(message), options.cause === undefined ? undefined : { cause: options.cause });
    if (typeof message !== 'string') this.parts = message;
    this.name = 'GatewayError';
    this.kind = ERROR_CATALOGUE[code];
    this.httpStatus = options.httpStatus ?? STATUS_OVERRIDES[code] ?? ERROR_KINDS[this.kind];
    if (options.headers) this.headers = options.headers;
    if (options.downstream) this.downstream = options.downstream;
  }

  /** The message with the fields it names called as `names` says (the message itself when it names none). */
  messageNaming(names: Readonly<Record<string, string>> | undefined): string {
    return this.parts && names ? messageText(this.parts, names) : this.message;
  }
}

/** The message a caller sees for an error we did not expect (details go to the log only). */
export const GENERIC_FAILURE_MESSAGE = 'The request could not be processed because of an internal error. It has been logged; quote the request id when reporting it.';

/** A start-up refusal the operator can act on from its message alone (a busy port, a folder in use): logged without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}
