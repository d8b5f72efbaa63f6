// Configuration, parsed once at start-up from the environment into one frozen, typed object.
// Every bad setting is reported at once; nothing else in the code reads process.env.
import { z } from 'zod';

const booleanText = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

const byteSize = z
  .string()
  .regex(/^\d+(b|kb|mb)$/i, 'must be a size such as 512kb or 1mb')
  .transform((value) => {
    const match = /^(\d+)(b|kb|mb)$/i.exec(value)!;
    const unit = match[2]!.toLowerCase();
    return Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
  });

const port = z.coerce.number().int().min(0).max(65535);

/** Environment variables the gateway reads, with their defaults. The README documents the same list. */
export const environmentSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1').describe('Address the HTTP server listens on.'),
  PORT: port.default(3000).describe('HTTP port (0 picks a free one).'),
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .describe('`production` turns GraphiQL and introspection off unless GRAPHIQL_ENABLED or GRAPHQL_INTROSPECTION say otherwise.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Least level of the log lines written to standard output.'),
  LOG_FORMAT: z
    .enum(['pretty', 'json'])
    .optional()
    .describe(
      'pretty (one coloured line per event, for people) or json (one JSON object per line, for log collectors). Default: pretty when standard output is a terminal outside production, json otherwise.',
    ),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe('PostgreSQL to use. When unset, the gateway starts its own embedded PostgreSQL.'),
  QUERY_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe(
      'Role template queries run as, on the same database: give it SELECT on schema datasources only. When unset, the gateway makes such a role if its user may create roles (the embedded PostgreSQL: always).',
    ),
  QUERY_READER_HIDE_CATALOGS: booleanText
    .optional()
    .describe(
      "Take from PUBLIC, in the gateway's database, reads of PostgreSQL's catalogs of roles, sessions, tables and settings, version() and session advisory locks, so template queries cannot see them (needs a superuser; other roles of that database lose them too). Default: on with the embedded PostgreSQL, off otherwise.",
    ),
  SESSION_TRUSTED_ORIGINS: z
    .string()
    .default('')
    .refine((value) => list(value).every((origin) => /^https?:\/\/[^/\s]+$/i.test(origin)), 'must be origins such as https://console.example.com (scheme and host, no path), comma-separated')
    .describe(
      "AUTH_MODE=session: origins whose requests may carry the session cookie although they name another host than the gateway's: a console whose proxy forwards the browser's Origin while rewriting Host. Default: none (such a request is refused as cross-site).",
    ),
  OBJECT_STORE_CORS_ORIGINS: z
    .string()
    .default('')
    .refine((value) => list(value).every((origin) => /^https?:\/\/[^/\s]+$/i.test(origin)), 'must be origins such as https://console.example.com (scheme and host, no path), comma-separated')
    .describe(
      "Origins whose pages may use the embedded object store's links from the browser (preflight and PUT/GET, e.g. the console's direct upload with x-ms-blob-type). Default: none (a link used with a foreign Origin is refused).",
    ),
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .refine(
      (value) => list(value).every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/i.test(origin)),
      'must be origins such as https://console.example.com (scheme and host, no path), comma-separated, or *',
    )
    .describe(
      'Web origins whose pages may call the API from a browser (CORS), comma-separated, e.g. https://console.example.com; * allows any origin, without credentials. Default: none (a request with a foreign Origin is refused with 403).',
    ),
  DATA_DIR: z.string().min(1).default('./.data').describe('Folder for embedded backends (PostgreSQL data lives in DATA_DIR/postgres).'),
  EMBEDDED_PG_PORT: port.default(54329).describe('Port of the embedded PostgreSQL (127.0.0.1 only; 0 picks a free one).'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10).describe('Connections in the database pool.'),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Longest a single SQL statement may run.'),
  REQUEST_BODY_LIMIT: byteSize.default(1024 * 1024).describe('Largest accepted JSON request body (e.g. 512kb, 1mb).'),
  REQUEST_BODY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(30_000)
    .describe('Longest a client may take to send a whole request (headers and body); a stalled one is answered 408 REQUEST_BODY_TIMEOUT and its connection closed.'),
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .optional()
    .describe(
      'Longest an API request (GraphQL or REST) may take before it is answered 503 REQUEST_TIMEOUT. Default: 60 s, or 5 s more than the longest downstream timeout set here if that is longer.',
    ),
  JSON_MAX_STRING_LENGTH: z.coerce
    .number()
    .int()
    .min(256)
    .max(1_000_000_000)
    .default(1024 * 1024)
    .describe(
      'Most characters of any one string value or object key in a JSON request body (REST), or in the variables or literal values of a GraphQL operation; a longer one is refused with 400, naming where it is.',
    ),
  JSON_MAX_ARRAY_LENGTH: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000_000)
    .default(10_000)
    .describe(
      'Most items of any one array in a JSON request body (REST), or in the variables or literal values of a GraphQL operation; a longer one is refused with 400, naming where it is. At least INGEST_MAX_BATCH (a batch is an array).',
    ),
  GRAPHIQL_ENABLED: booleanText.optional().describe('Serve GraphiQL at GET /graphql (default: on, except in production).'),
  GRAPHQL_INTROSPECTION: booleanText.optional().describe('Allow schema introspection (default: on, except in production).'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(12).describe('Deepest selection a GraphQL operation may nest.'),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(30).describe('Most aliases one GraphQL document may use.'),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(5000).describe('Most lexical tokens in one GraphQL document (refused while parsing).'),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(50_000).describe('Largest cost of a GraphQL operation: 1 per field, list fields weighted by their page size (`first`).'),
  PERSISTED_OPERATIONS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('Allow list of GraphQL operations (Apollo persisted-query manifest); default persisted-operations.json, generated from graphql/operations/.'),
  PERSISTED_OPERATIONS_REQUIRED_FOR: z
    .string()
    .regex(/^\s*(\*|(role|caller):[^,;\s]+)(\s*,\s*(\*|(role|caller):[^,;\s]+))*\s*$/, 'must be * or a comma-separated list of role:<role> and caller:<caller id>')
    .optional()
    .describe('GraphQL callers that may run only operations of the allow list: * (everyone), role:<role>, caller:<id> (JWT subject, session user, apikey:<name>), comma-separated. Default: nobody.'),
  GRAPHQL_MAX_BATCH: z.coerce.number().int().min(1).max(100).default(1).describe('Most operations in one batched GraphQL request (1: batching off).'),
  LIVE_QUEUE_CAPACITY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(256)
    .describe('Events a subscriber (WebSocket or SSE) may fall behind by; one more and it is dropped (WebSocket close 4429), never buffered without bound.'),
  LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).max(10_000).default(100).describe('Subscriptions one WebSocket connection may hold at once.'),
  LIVE_MAX_SUBSCRIPTIONS_PER_CALLER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1_000)
    .describe('Subscriptions one caller (user, API key) may hold at once on one gateway, over all its connections.'),
  LIVE_KEEPALIVE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(12)
    .describe('How often an idle WebSocket is pinged (a client that does not answer within as long is dropped); 0 turns pings off.'),
  AUTH_MODE: z
    .enum(['none', 'jwt', 'session'])
    .default('none')
    .describe('none (everyone is SYSTEM; only on a loopback HOST), jwt (bearer tokens) or session (the connect.sid cookie). jwt and session also take API keys (x-api-key).'),
  PERMISSIONS_FILE: z.string().min(1).optional().describe('Role and permission policy (JSON); default config/permissions.json, the original role groups.'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional().describe('AUTH_MODE=jwt: HS256 shared secret.'),
  JWT_PUBLIC_KEY_FILE: z.string().min(1).optional().describe('AUTH_MODE=jwt: PEM file with the RS256 (RSA) or ES256 (P-256) public key or certificate.'),
  JWT_JWKS_FILE: z.string().min(1).optional().describe('AUTH_MODE=jwt: JWKS file (RS256/ES256 keys, chosen by kid).'),
  JWT_ISSUER: z.string().min(1).optional().describe('AUTH_MODE=jwt: accepted `iss` values, comma-separated (required).'),
  JWT_AUDIENCE: z.string().min(1).optional().describe('AUTH_MODE=jwt: accepted `aud` values, comma-separated (required).'),
  JWT_VERIFY_ISSUER: booleanText
    .default(true)
    .describe('AUTH_MODE=jwt: check `iss` against JWT_ISSUER. Off only for issuers that set none (the original console signs its tokens without `iss`); a warning is logged at start-up.'),
  JWT_VERIFY_AUDIENCE: booleanText
    .default(true)
    .describe('AUTH_MODE=jwt: check `aud` against JWT_AUDIENCE. Off only for issuers that set none (the original console); a warning is logged at start-up.'),
  JWT_ROLES_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+)*$/, 'must be a claim name or dotted path')
    .default('roles')
    .describe('AUTH_MODE=jwt: claim holding the roles (dotted path for nested claims).'),
  JWT_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30).describe('AUTH_MODE=jwt: clock skew allowed on exp/nbf.'),
  SESSION_SECRET: z.string().min(1).optional().describe('AUTH_MODE=session: secret(s) the session cookie is signed with, comma-separated (first is current; required).'),
  SESSION_TABLE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/, 'must be a table name, optionally schema-qualified')
    .default('session')
    .describe("AUTH_MODE=session: the express-session store table (connect-pg-simple's layout: sid, sess, expire). The original console's is user_session."),
  SESSION_USER_PATH: z
    .string()
    .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'must be a dotted path')
    .optional()
    .describe(
      'AUTH_MODE=session: where the session record holds the user: an id string or an object with an id (the console: passport.user). Unset: user, passport.user or the record itself, each an object with an id.',
    ),
  SESSION_ROLES_PATH: z
    .string()
    .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'must be a dotted path')
    .optional()
    .describe("AUTH_MODE=session: where the session record holds the user's roles (the console: roles). Unset: the user object's roles."),
  SESSION_COOKIE_NAME: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a cookie name')
    .default('connect.sid')
    .describe('AUTH_MODE=session: name of the session cookie.'),
  AUTH_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300_000)
    .default(5000)
    .describe('How long a verified session or API key is remembered (ending or revoking it takes effect within this); 0: never.'),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('Bearer token GET /metrics requires (Prometheus `authorization` credentials). Unset: /metrics is open; keep it off the public ingress.'),
  RATE_LIMIT_RPS: z.coerce.number().min(0).optional().describe('Calls per second per caller (token bucket, per process); 0: off. Default: 100, or off with AUTH_MODE=none.'),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).optional().describe('Largest burst of calls per caller (default: 2 × RATE_LIMIT_RPS).'),
  RATE_LIMIT_INGEST_RPS: z.coerce.number().min(0).optional().describe('Ingestion calls (api.data.in) per second per caller, a budget of its own; 0: off. Default: 20, or off with AUTH_MODE=none.'),
  RATE_LIMIT_INGEST_BURST: z.coerce.number().int().min(1).optional().describe('Largest burst of ingestion calls per caller (default: 2 × RATE_LIMIT_INGEST_RPS).'),
  TEMPLATE_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most templates one list call returns.'),
  KAFKA_BROKERS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'must be host:port pairs separated by commas')
    .optional()
    .describe('Kafka brokers (host:port,...). When unset, events go to the embedded event store in PostgreSQL.'),
  KAFKA_CLIENT_ID: z.string().min(1).default('data-platform-gateway').describe('Kafka client id.'),
  KAFKA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Longest an ingest call waits for Kafka, retries included.'),
  INGEST_MAX_BATCH: z.coerce.number().int().min(1).max(100_000).default(5_000).describe('Most events one ingest call may carry.'),
  INGEST_BODY_LIMIT: byteSize.default(10 * 1024 * 1024).describe('Largest ingest request body (e.g. 10mb).'),
  DRUID_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Druid router/broker URL. When unset, templates run on the embedded engine (PostgreSQL).'),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000).describe('Longest a template query may run before it is cancelled.'),
  TEMPLATE_QUERY_MAX_ROWS: z.coerce.number().int().min(1).max(100_000).default(5_000).describe('Largest LIMIT a template run may ask for (and the default).'),
  CONNECTOR_CONFIG_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (a 256-bit key)')
    .optional()
    .describe(
      'Key (64 hex characters) sealing the connector configurations of datasets at rest (AES-256-GCM). When unset, one is generated once and kept in DATA_DIR/connector-config.secret; gateways sharing a database must share it.',
    ),
  DATASET_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most datasets one list call returns.'),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Base URL clients reach the gateway at; embedded object-store links are built on it (default: http://HOST:PORT as listened on).'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
    .optional()
    .describe('Bucket for files and connector distributions. When unset, the embedded object store (DATA_DIR/objects) is used.'),
  S3_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Endpoint of an S3-compatible store (MinIO, R2, s3rver, ...); AWS itself when unset.'),
  S3_PUBLIC_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Endpoint that pre-signed links name, when clients reach the store at another address than the gateway does (e.g. http://localhost:9000 for a MinIO the gateway calls http://minio:9000). Default: S3_ENDPOINT.',
    ),
  S3_REGION: z.string().min(1).default('us-east-1').describe('S3 region. Credentials come from the standard AWS chain (environment, profile, instance role).'),
  S3_FORCE_PATH_STYLE: booleanText.optional().describe('Address the bucket in the path, not the host name (default: on when S3_ENDPOINT is set).'),
  OBJECT_STORE_SECRET: z.string().min(32).optional().describe('Key signing embedded object-store links. When unset, one is generated once and kept in DATA_DIR/object-store.secret.'),
  OBJECT_MAX_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest object the embedded store accepts through an upload link.'),
  FILES_URL_EXPIRY_SECONDS: z.coerce.number().int().min(1).max(604_800).default(600).describe('Lifetime of generated upload and download links.'),
  FILES_URL_LIMIT: z.coerce.number().int().min(1).max(1000).default(20).describe('Most files one generate-url call may name.'),
  CONNECTOR_UI_SPEC_FORMAT: z
    .enum(['contract', 'console'])
    .default('contract')
    .describe(
      "Layout of a connector's ui_spec in reads: contract (schema + UI hints, contract 2.4) or console (one JSON Schema form of the connector configuration, as the original web console renders it).",
    ),
  CONNECTOR_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most connectors one list call returns.'),
  CONNECTOR_UPLOAD_LIMIT: byteSize.default(100 * 1024 * 1024).describe('Largest connector distribution accepted for registration.'),
  CONNECTOR_ARCHIVE_MAX_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(2000).describe('Most entries a connector archive may hold.'),
  CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest uncompressed size of one entry of a connector archive.'),
  CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE: byteSize.default(500 * 1024 * 1024).describe('Largest uncompressed size of a whole connector archive.'),
  ALERTMANAGER_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Prometheus Alertmanager (API v2). When set, silences can be held there (manager "alertmanager").'),
  GRAFANA_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'Grafana. When set, silences, channels (contact points) and alert rules can be held there (manager "grafana"). ' +
        "Rules go to its ruler (folder and group = the rule's category, evaluated with its first Prometheus data source, notifying the rule's first channel by simplified routing): " +
        'Grafana 11.5.2 or newer, with evaluation intervals that are multiples of 10s.',
    ),
  GRAFANA_TOKEN: z.string().min(1).optional().describe('Grafana service-account token, sent as `Authorization: Bearer <token>`.'),
  ALERT_MANAGER_DEFAULT: z
    .enum(['embedded', 'alertmanager', 'grafana'])
    .optional()
    .describe(
      'Manager of a silence or channel whose request names none; it must be configured. Default: grafana when GRAFANA_URL is set, else alertmanager when ALERTMANAGER_URL is set, else embedded. Channels that would land on alertmanager (it holds no channels) are held by embedded.',
    ),
  ALERT_MANAGER_ALIASES: z
    .string()
    .default('')
    .refine(
      (value) => list(value).every((pair) => /^[a-z][a-z0-9_.-]{0,39}=(embedded|alertmanager|grafana)$/i.test(pair)),
      'must be name=manager pairs separated by commas, e.g. grafana=alertmanager,prometheus=embedded (a manager is embedded, alertmanager or grafana)',
    )
    .describe(
      "Other names requests may give as `manager`, each served by a configured manager (`name=manager`, comma-separated). Without GRAFANA_URL the name grafana (what legacy clients send) is served by alertmanager when ALERTMANAGER_URL is set, else by embedded, unless this says otherwise. A configured manager's own name cannot be an alias.",
    ),
  ALERT_MANAGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Longest one call to Alertmanager or Grafana may take.'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/\s]+/, 'must be an smtp:// or smtps:// URL')
    .optional()
    .describe('SMTP server for e-mail channels (smtp://user:pass@host:587). When unset, e-mails are written to DATA_DIR/outbox.'),
  SMTP_FROM: z.string().min(3).default('Data Platform Gateway <alerts@localhost>').describe('Sender of notification e-mails.'),
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .regex(
      /^\s*((\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?\s*(,\s*((\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?\s*)*$/,
      'must be host names (optionally *.domain or host:port) separated by commas',
    )
    .default('hooks.slack.com,*.webhook.office.com,*.logic.azure.com')
    .describe('Hosts Slack/Teams webhook URLs may name (SSRF guard). Loopback and private addresses only when listed.'),
  NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe('Longest sending one notification may take.'),
  ALERTING_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most silences, aliases or channels one list call returns.'),
  ALERT_EVALUATION_TICK_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(10)
    .describe('How often the embedded rule evaluator looks for due alert rules and pending notifications (each rule runs on its own interval); 0 turns it off.'),
  ALERT_REPEAT_INTERVAL_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_080)
    .default(240)
    .describe("How often a rule that keeps firing notifies its channels again (as Alertmanager's repeat_interval)."),
  PII_SERVICE_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Downstream PII detector (a Presidio analyzer). When unset, the built-in detectors run in process.'),
  PII_SERVICE_TOKEN: z.string().min(1).optional().describe('Sent to the PII detector as `Authorization: Bearer <token>`.'),
  PII_SERVICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000).describe('Longest one call to the PII detector may take.'),
  PII_MAX_RECORDS: z.coerce.number().int().min(1).max(100_000).default(1000).describe('Most records one PII analysis may carry.'),
  PII_MAX_BYTES: byteSize.default(1024 * 1024).describe('Largest serialised size of the records of one PII analysis.'),
  PII_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5).describe('Lowest score (0 to 1) a field is reported with as personal data.'),
  PROMETHEUS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Prometheus the dataset metrics read pipeline figures from. When unset, they come from the embedded event store.'),
  PROMETHEUS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000).describe('Longest one Prometheus query may take.'),
  METRICS_SAMPLE_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(15)
    .describe(
      "How often the gateway samples its own metrics into the embedded metrics store (what POST /v2/data/metrics and the console's dashboards read when PROMETHEUS_URL is unset). 0 turns sampling off. Ignored when PROMETHEUS_URL is set (Prometheus scrapes GET /metrics).",
    ),
  METRICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7).describe('Days the embedded metrics store keeps samples.'),
  METRICS_CHUNK_CACHE_MB: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_536)
    .default(64)
    .describe(
      "MiB of decoded hourly chunks of the embedded metrics store each gateway keeps in memory, so a dashboard's repeated range queries are not read from PostgreSQL again (each query still lists the chunks from the database: a chunk compacted or dropped since is seen). 0 keeps none.",
    ),
  METRICS_DEFAULT_PERIOD_DAYS: z.coerce.number().int().min(1).max(3650).default(7).describe('Days dataset metrics look back when a request names no query_time_period.'),
  METRICS_MAX_PERIOD_DAYS: z.coerce.number().int().min(1).max(3650).default(90).describe('Largest query_time_period (days) a metrics request may ask for.'),
  METRICS_FRESHNESS_THRESHOLD_MIN: z.coerce.number().positive().default(5).describe('Minutes of event-to-arrival lag under which freshness is Healthy.'),
  METRICS_QUERY_TIME_THRESHOLD_MIN: z.coerce.number().positive().default(10).describe('Age in minutes of the newest event under which freshness is Healthy.'),
  METRICS_FAILURE_THRESHOLD_PERCENT: z.coerce.number().min(0).max(100).default(5).describe('Percentage of refused events above which observability is Unhealthy.'),
});

export interface Config {
  http: { host: string; port: number; corsAllowedOrigins: string[]; bodyLimitBytes: number; bodyTimeoutMs: number; requestTimeoutMs: number; metricsToken?: string };
  env: 'development' | 'production' | 'test';
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  /** Unset: chosen at start-up from the terminal (src/main.ts). */
  logFormat?: 'pretty' | 'json';
  database:
    | { mode: 'external'; url: string; poolMax: number; statementTimeoutMs: number; queryUrl?: string; hideCatalogs: boolean }
    | { mode: 'embedded'; dataDir: string; port: number; poolMax: number; statementTimeoutMs: number; queryUrl?: string; hideCatalogs: boolean };
  graphql: {
    graphiql: boolean;
    introspection: boolean;
    /** The allow list (`file` unset: persisted-operations.json) and who must keep to it. */
    persistedOperations: { file?: string; requiredFor: string[] };
  };
  graphqlLimits: { maxDepth: number; maxAliases: number; maxTokens: number; maxCost: number; maxBatch: number };
  /** Subscriptions (src/modules/live, src/http/use-subscriptions.ts). */
  live: { queueCapacity: number; maxPerConnection: number; maxPerCaller: number; keepAliveMs: number };
  /** Lengths of strings, keys and arrays in a JSON body or GraphQL variables (src/validation/json-limits.ts). */
  jsonLimits: { maxStringLength: number; maxArrayLength: number };
  auth: {
    mode: 'none' | 'jwt' | 'session';
    /** Unset: config/permissions.json. */
    permissionsFile?: string;
    cacheTtlMs: number;
    /** issuer/audience null: that check is off (JWT_VERIFY_ISSUER / JWT_VERIFY_AUDIENCE=false). */
    jwt?: { secret?: string; publicKeyFile?: string; jwksFile?: string; issuer: string[] | null; audience: string[] | null; rolesClaim: string; clockToleranceSeconds: number };
    session?: { cookieName: string; secrets: string[]; table: string; userPath?: string; rolesPath?: string; trustedOrigins: string[] };
  };
  rateLimits: { general: { perSecond: number; burst: number }; ingest: { perSecond: number; burst: number } };
  templates: { listMax: number };
  datasets: { listMax: number; connectorKey: { key: string } | { keyFile: string } };
  objectStore:
    | { kind: 'embedded'; dir: string; secret?: string; secretFile: string; maxObjectBytes: number; publicUrl?: string; corsOrigins: string[] }
    | { kind: 's3'; bucket: string; region: string; endpoint?: string; publicEndpoint?: string; forcePathStyle: boolean };
  files: { urlExpirySeconds: number; urlLimit: number };
  connectors: { listMax: number; uploadLimitBytes: number; workDir: string; archive: { maxEntries: number; maxEntryBytes: number; maxTotalBytes: number }; uiSpecFormat: 'contract' | 'console' };
  queryEngine: { statementTimeoutMs: number; maxRows: number; druid?: { url: string; timeoutMs: number } };
  ingestion: { maxBatch: number; bodyLimitBytes: number; kafka?: { brokers: string[]; clientId: string; timeoutMs: number } };
  alerting: {
    listMax: number;
    timeoutMs: number;
    alertmanager?: { url: string };
    grafana?: { url: string; token?: string };
    /** How `manager` names in requests resolve (src/modules/alerts/manager-names.ts); checked against the configured managers. */
    managerNames: { default?: ManagerKindName; aliases: Readonly<Record<string, ManagerKindName>> };
    smtp?: { url: string };
    mailFrom: string;
    outboxDir: string;
    webhookAllowedHosts: string[];
    notifyTimeoutMs: number;
    /** How often the embedded rule evaluator runs a cycle (0: never on its own). */
    evaluationTickMs: number;
    repeatIntervalMs: number;
  };
  pii: { maxRecords: number; maxBytes: number; minScore: number; service?: { url: string; timeoutMs: number; token?: string } };
  metrics: {
    defaultPeriodDays: number;
    maxPeriodDays: number;
    /** How often the embedded metrics store samples this gateway's metrics (0: never). */
    sampleIntervalMs: number;
    retentionMs: number;
    /** Bytes of decoded chunks the embedded metrics store keeps between queries (0: none). */
    chunkCacheBytes: number;
    freshnessThresholdMin: number;
    queryTimeThresholdMin: number;
    failureThresholdPercent: number;
    prometheus?: { url: string; timeoutMs: number };
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty values count as unset, as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const combined = [...accessProblems(e), ...limitProblems(e), ...managerNameProblems(e)];
  if (combined.length > 0) throw new ConfigError(combined);
  const production = e.NODE_ENV === 'production';
  const pool = { poolMax: e.DB_POOL_MAX, statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS, ...(e.QUERY_DATABASE_URL ? { queryUrl: e.QUERY_DATABASE_URL } : {}) };
  return deepFreeze({
    http: {
      host: e.HOST,
      port: e.PORT,
      corsAllowedOrigins: list(e.CORS_ALLOWED_ORIGINS),
      bodyLimitBytes: e.REQUEST_BODY_LIMIT,
      bodyTimeoutMs: e.REQUEST_BODY_TIMEOUT_MS,
      requestTimeoutMs: requestTimeout(e),
      ...(e.METRICS_TOKEN ? { metricsToken: e.METRICS_TOKEN } : {}),
    },
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    ...(e.LOG_FORMAT ? { logFormat: e.LOG_FORMAT } : {}),
    database: e.DATABASE_URL
      ? { mode: 'external', url: e.DATABASE_URL, ...pool, hideCatalogs: e.QUERY_READER_HIDE_CATALOGS ?? false }
      : { mode: 'embedded', dataDir: `${e.DATA_DIR}/postgres`, port: e.EMBEDDED_PG_PORT, ...pool, hideCatalogs: e.QUERY_READER_HIDE_CATALOGS ?? true },
    graphql: {
      graphiql: e.GRAPHIQL_ENABLED ?? !production,
      introspection: e.GRAPHQL_INTROSPECTION ?? !production,
      persistedOperations: {
        ...(e.PERSISTED_OPERATIONS_FILE ? { file: e.PERSISTED_OPERATIONS_FILE } : {}),
        requiredFor: list(e.PERSISTED_OPERATIONS_REQUIRED_FOR),
      },
    },
    graphqlLimits: { maxDepth: e.GRAPHQL_MAX_DEPTH, maxAliases: e.GRAPHQL_MAX_ALIASES, maxTokens: e.GRAPHQL_MAX_TOKENS, maxCost: e.GRAPHQL_MAX_COST, maxBatch: e.GRAPHQL_MAX_BATCH },
    live: {
      queueCapacity: e.LIVE_QUEUE_CAPACITY,
      maxPerConnection: e.LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxPerCaller: e.LIVE_MAX_SUBSCRIPTIONS_PER_CALLER,
      keepAliveMs: e.LIVE_KEEPALIVE_SECONDS * 1000,
    },
    jsonLimits: { maxStringLength: e.JSON_MAX_STRING_LENGTH, maxArrayLength: e.JSON_MAX_ARRAY_LENGTH },
    auth: authSettings(e),
    rateLimits: rateLimitSettings(e),
    templates: { listMax: e.TEMPLATE_LIST_MAX },
    datasets: { listMax: e.DATASET_LIST_MAX, connectorKey: e.CONNECTOR_CONFIG_KEY ? { key: e.CONNECTOR_CONFIG_KEY } : { keyFile: `${e.DATA_DIR}/connector-config.secret` } },
    objectStore: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          ...(e.S3_ENDPOINT ? { endpoint: e.S3_ENDPOINT } : {}),
          ...(e.S3_PUBLIC_ENDPOINT ? { publicEndpoint: e.S3_PUBLIC_ENDPOINT } : {}),
          forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
        }
      : {
          kind: 'embedded',
          dir: `${e.DATA_DIR}/objects`,
          secretFile: `${e.DATA_DIR}/object-store.secret`,
          corsOrigins: list(e.OBJECT_STORE_CORS_ORIGINS),
          maxObjectBytes: e.OBJECT_MAX_SIZE,
          ...(e.OBJECT_STORE_SECRET ? { secret: e.OBJECT_STORE_SECRET } : {}),
          ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
        },
    files: { urlExpirySeconds: e.FILES_URL_EXPIRY_SECONDS, urlLimit: e.FILES_URL_LIMIT },
    connectors: {
      listMax: e.CONNECTOR_LIST_MAX,
      uiSpecFormat: e.CONNECTOR_UI_SPEC_FORMAT,
      uploadLimitBytes: e.CONNECTOR_UPLOAD_LIMIT,
      workDir: `${e.DATA_DIR}/tmp`,
      archive: {
        maxEntries: e.CONNECTOR_ARCHIVE_MAX_ENTRIES,
        maxEntryBytes: e.CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE,
        maxTotalBytes: e.CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE,
      },
    },
    queryEngine: {
      statementTimeoutMs: e.QUERY_TIMEOUT_MS,
      maxRows: e.TEMPLATE_QUERY_MAX_ROWS,
      ...(e.DRUID_URL ? { druid: { url: e.DRUID_URL, timeoutMs: e.QUERY_TIMEOUT_MS } } : {}),
    },
    ingestion: {
      maxBatch: e.INGEST_MAX_BATCH,
      bodyLimitBytes: e.INGEST_BODY_LIMIT,
      ...(e.KAFKA_BROKERS ? { kafka: { brokers: e.KAFKA_BROKERS.split(','), clientId: e.KAFKA_CLIENT_ID, timeoutMs: e.KAFKA_TIMEOUT_MS } } : {}),
    },
    alerting: {
      listMax: e.ALERTING_LIST_MAX,
      timeoutMs: e.ALERT_MANAGER_TIMEOUT_MS,
      ...(e.ALERTMANAGER_URL ? { alertmanager: { url: e.ALERTMANAGER_URL } } : {}),
      ...(e.GRAFANA_URL ? { grafana: { url: e.GRAFANA_URL, ...(e.GRAFANA_TOKEN ? { token: e.GRAFANA_TOKEN } : {}) } } : {}),
      managerNames: { ...(e.ALERT_MANAGER_DEFAULT ? { default: e.ALERT_MANAGER_DEFAULT } : {}), aliases: Object.fromEntries(managerAliases(e.ALERT_MANAGER_ALIASES)) },
      ...(e.SMTP_URL ? { smtp: { url: e.SMTP_URL } } : {}),
      mailFrom: e.SMTP_FROM,
      outboxDir: `${e.DATA_DIR}/outbox`,
      webhookAllowedHosts: e.WEBHOOK_ALLOWED_HOSTS.split(',')
        .map((host) => host.trim())
        .filter(Boolean),
      notifyTimeoutMs: e.NOTIFY_TIMEOUT_MS,
      evaluationTickMs: e.ALERT_EVALUATION_TICK_SECONDS * 1000,
      repeatIntervalMs: e.ALERT_REPEAT_INTERVAL_MINUTES * 60_000,
    },
    pii: {
      maxRecords: e.PII_MAX_RECORDS,
      maxBytes: e.PII_MAX_BYTES,
      minScore: e.PII_MIN_SCORE,
      ...(e.PII_SERVICE_URL ? { service: { url: e.PII_SERVICE_URL, timeoutMs: e.PII_SERVICE_TIMEOUT_MS, ...(e.PII_SERVICE_TOKEN ? { token: e.PII_SERVICE_TOKEN } : {}) } } : {}),
    },
    metrics: {
      defaultPeriodDays: e.METRICS_DEFAULT_PERIOD_DAYS,
      maxPeriodDays: e.METRICS_MAX_PERIOD_DAYS,
      freshnessThresholdMin: e.METRICS_FRESHNESS_THRESHOLD_MIN,
      queryTimeThresholdMin: e.METRICS_QUERY_TIME_THRESHOLD_MIN,
      failureThresholdPercent: e.METRICS_FAILURE_THRESHOLD_PERCENT,
      sampleIntervalMs: e.METRICS_SAMPLE_INTERVAL_SECONDS * 1000,
      retentionMs: e.METRICS_RETENTION_DAYS * 86_400_000,
      chunkCacheBytes: e.METRICS_CHUNK_CACHE_MB * 2 ** 20,
      ...(e.PROMETHEUS_URL ? { prometheus: { url: e.PROMETHEUS_URL, timeoutMs: e.PROMETHEUS_TIMEOUT_MS } } : {}),
    },
  });
}

/** Unset: long enough for the slowest downstream call a request may wait for, and at least 60 s. */
function requestTimeout(e: z.infer<typeof environmentSchema>): number {
  if (e.REQUEST_TIMEOUT_MS !== undefined) return e.REQUEST_TIMEOUT_MS;
  const downstream = [e.DB_STATEMENT_TIMEOUT_MS, e.QUERY_TIMEOUT_MS, e.KAFKA_TIMEOUT_MS, e.ALERT_MANAGER_TIMEOUT_MS, e.NOTIFY_TIMEOUT_MS, e.PII_SERVICE_TIMEOUT_MS, e.PROMETHEUS_TIMEOUT_MS];
  return Math.max(60_000, Math.max(...downstream) + 5_000);
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost|::ffff:127(\.\d{1,3}){3})$/i;

/** True for addresses only this machine can reach (AUTH_MODE=none is allowed on these alone). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host.trim());
}

/** Settings of authentication that only make sense together; every problem is reported at once. */
function accessProblems(e: z.infer<typeof environmentSchema>): string[] {
  const problems: string[] = [];
  if (e.AUTH_MODE === 'none' && !isLoopbackHost(e.HOST)) {
    problems.push(
      `AUTH_MODE: 'none' (no authentication: every caller acts as SYSTEM with every permission) is allowed only on a loopback HOST, and HOST is ${e.HOST}. ` +
        'Set AUTH_MODE=jwt or AUTH_MODE=session, or listen on 127.0.0.1.',
    );
  }
  if (e.AUTH_MODE === 'jwt') {
    const keys = [e.JWT_SECRET && 'JWT_SECRET', e.JWT_PUBLIC_KEY_FILE && 'JWT_PUBLIC_KEY_FILE', e.JWT_JWKS_FILE && 'JWT_JWKS_FILE'].filter(Boolean);
    if (keys.length !== 1) problems.push(`AUTH_MODE=jwt needs exactly one of JWT_SECRET, JWT_PUBLIC_KEY_FILE, JWT_JWKS_FILE (${keys.length ? `got ${keys.join(' and ')}` : 'none is set'})`);
    if (e.JWT_VERIFY_ISSUER && list(e.JWT_ISSUER).length === 0) problems.push('JWT_ISSUER: required with AUTH_MODE=jwt (the accepted token issuers), unless JWT_VERIFY_ISSUER=false');
    if (e.JWT_VERIFY_AUDIENCE && list(e.JWT_AUDIENCE).length === 0) problems.push('JWT_AUDIENCE: required with AUTH_MODE=jwt (the accepted token audiences), unless JWT_VERIFY_AUDIENCE=false');
  }
  if (e.AUTH_MODE === 'session' && list(e.SESSION_SECRET).length === 0) problems.push('SESSION_SECRET: required with AUTH_MODE=session (the session cookie signing secret)');
  return problems;
}

/** Limits that must agree with each other; every problem is reported at once. */
function limitProblems(e: z.infer<typeof environmentSchema>): string[] {
  const problems: string[] = [];
  if (e.INGEST_MAX_BATCH > e.JSON_MAX_ARRAY_LENGTH) {
    problems.push(
      `INGEST_MAX_BATCH: ${e.INGEST_MAX_BATCH} is larger than JSON_MAX_ARRAY_LENGTH (${e.JSON_MAX_ARRAY_LENGTH}); an ingest batch is a JSON array, ` +
        'so no call could carry that many events. Lower INGEST_MAX_BATCH or raise JSON_MAX_ARRAY_LENGTH.',
    );
  }
  return problems;
}

/** The kinds of alert manager (src/modules/alerts/types.ts names them too). */
type ManagerKindName = 'embedded' | 'alertmanager' | 'grafana';

/** `grafana=alertmanager, Prometheus=embedded` -> [['grafana', 'alertmanager'], ['prometheus', 'embedded']] (names in lower case). */
function managerAliases(value: string): [string, ManagerKindName][] {
  return list(value).map((pair) => {
    const [name, target] = pair.split('=') as [string, string];
    return [name.trim().toLowerCase(), target.trim().toLowerCase() as ManagerKindName];
  });
}

/** ALERT_MANAGER_DEFAULT and ALERT_MANAGER_ALIASES must name managers this configuration enables; every problem is reported at once. */
function managerNameProblems(e: z.infer<typeof environmentSchema>): string[] {
  const setting: Record<ManagerKindName, string | undefined> = { embedded: 'always', alertmanager: e.ALERTMANAGER_URL, grafana: e.GRAFANA_URL };
  const variable: Record<ManagerKindName, string> = { embedded: '', alertmanager: 'ALERTMANAGER_URL', grafana: 'GRAFANA_URL' };
  const problems: string[] = [];
  if (e.ALERT_MANAGER_DEFAULT && !setting[e.ALERT_MANAGER_DEFAULT]) {
    problems.push(`ALERT_MANAGER_DEFAULT: ${e.ALERT_MANAGER_DEFAULT} is not configured (${variable[e.ALERT_MANAGER_DEFAULT]} is not set)`);
  }
  const seen = new Set<string>();
  for (const [name, target] of managerAliases(e.ALERT_MANAGER_ALIASES)) {
    if (seen.has(name)) problems.push(`ALERT_MANAGER_ALIASES: ${name} is given more than once`);
    seen.add(name);
    if ((name === 'embedded' || name === 'alertmanager' || name === 'grafana') && setting[name]) {
      problems.push(`ALERT_MANAGER_ALIASES: ${name} is a configured manager's own name and cannot be an alias`);
    }
    if (!setting[target]) problems.push(`ALERT_MANAGER_ALIASES: ${name}=${target} names a manager that is not configured (${variable[target]} is not set)`);
  }
  return problems;
}

function authSettings(e: z.infer<typeof environmentSchema>): Config['auth'] {
  return {
    mode: e.AUTH_MODE,
    ...(e.PERMISSIONS_FILE ? { permissionsFile: e.PERMISSIONS_FILE } : {}),
    cacheTtlMs: e.AUTH_CACHE_TTL_MS,
    ...(e.AUTH_MODE === 'jwt'
      ? {
          jwt: {
            ...(e.JWT_SECRET ? { secret: e.JWT_SECRET } : {}),
            ...(e.JWT_PUBLIC_KEY_FILE ? { publicKeyFile: e.JWT_PUBLIC_KEY_FILE } : {}),
            ...(e.JWT_JWKS_FILE ? { jwksFile: e.JWT_JWKS_FILE } : {}),
            issuer: e.JWT_VERIFY_ISSUER ? list(e.JWT_ISSUER) : null,
            audience: e.JWT_VERIFY_AUDIENCE ? list(e.JWT_AUDIENCE) : null,
            rolesClaim: e.JWT_ROLES_CLAIM,
            clockToleranceSeconds: e.JWT_CLOCK_TOLERANCE_SECONDS,
          },
        }
      : {}),
    ...(e.AUTH_MODE === 'session'
      ? {
          session: {
            cookieName: e.SESSION_COOKIE_NAME,
            secrets: list(e.SESSION_SECRET),
            table: e.SESSION_TABLE,
            trustedOrigins: list(e.SESSION_TRUSTED_ORIGINS),
            ...(e.SESSION_USER_PATH ? { userPath: e.SESSION_USER_PATH } : {}),
            ...(e.SESSION_ROLES_PATH ? { rolesPath: e.SESSION_ROLES_PATH } : {}),
          },
        }
      : {}),
  };
}

/** Unset limits: on when callers are authenticated, off with AUTH_MODE=none (one local user). */
function rateLimitSettings(e: z.infer<typeof environmentSchema>): Config['rateLimits'] {
  const open = e.AUTH_MODE === 'none';
  const general = e.RATE_LIMIT_RPS ?? (open ? 0 : 100);
  const ingest = e.RATE_LIMIT_INGEST_RPS ?? (open ? 0 : 20);
  return {
    general: { perSecond: general, burst: e.RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(general * 2)) },
    ingest: { perSecond: ingest, burst: e.RATE_LIMIT_INGEST_BURST ?? Math.max(1, Math.ceil(ingest * 2)) },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
