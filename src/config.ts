// Configuration, parsed once at start-up from the environment into one frozen, typed object.
// Every bad setting is reported at once; nothing else in the code reads process.env.
import { z } from 'zod';

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

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
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional()
    .describe('PostgreSQL to use. When unset, the gateway starts its own embedded PostgreSQL.'),
  DATA_DIR: z.string().min(1).default('./.data').describe('Folder for embedded backends (PostgreSQL data lives in DATA_DIR/postgres).'),
  EMBEDDED_PG_PORT: port.default(54329).describe('Port of the embedded PostgreSQL (127.0.0.1 only; 0 picks a free one).'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10).describe('Connections in the database pool.'),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Longest a single SQL statement may run.'),
  REQUEST_BODY_LIMIT: byteSize.default(1024 * 1024).describe('Largest accepted JSON request body (e.g. 512kb, 1mb).'),
  GRAPHIQL_ENABLED: booleanText.optional().describe('Serve GraphiQL at GET /graphql (default: on, except in production).'),
  GRAPHQL_INTROSPECTION: booleanText.optional().describe('Allow schema introspection (default: on, except in production).'),
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
  DRUID_URL: z.url({ protocol: /^https?$/ }).optional().describe('Druid router/broker URL. When unset, templates run on the embedded engine (PostgreSQL).'),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000).describe('Longest a template query may run before it is cancelled.'),
  TEMPLATE_QUERY_MAX_ROWS: z.coerce.number().int().min(1).max(100_000).default(5_000).describe('Largest LIMIT a template run may ask for (and the default).'),
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
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional().describe('Endpoint of an S3-compatible store (MinIO, R2, s3rver, ...); AWS itself when unset.'),
  S3_REGION: z.string().min(1).default('us-east-1').describe('S3 region. Credentials come from the standard AWS chain (environment, profile, instance role).'),
  S3_FORCE_PATH_STYLE: booleanText.optional().describe('Address the bucket in the path, not the host name (default: on when S3_ENDPOINT is set).'),
  OBJECT_STORE_SECRET: z
    .string()
    .min(32)
    .optional()
    .describe('Key signing embedded object-store links. When unset, one is generated once and kept in DATA_DIR/object-store.secret.'),
  OBJECT_MAX_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest object the embedded store accepts through an upload link.'),
  FILES_URL_EXPIRY_SECONDS: z.coerce.number().int().min(1).max(604_800).default(600).describe('Lifetime of generated upload and download links.'),
  FILES_URL_LIMIT: z.coerce.number().int().min(1).max(1000).default(20).describe('Most files one generate-url call may name.'),
  CONNECTOR_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most connectors one list call returns.'),
  CONNECTOR_UPLOAD_LIMIT: byteSize.default(100 * 1024 * 1024).describe('Largest connector distribution accepted for registration.'),
  CONNECTOR_ARCHIVE_MAX_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(2000).describe('Most entries a connector archive may hold.'),
  CONNECTOR_ARCHIVE_MAX_ENTRY_SIZE: byteSize.default(100 * 1024 * 1024).describe('Largest uncompressed size of one entry of a connector archive.'),
  CONNECTOR_ARCHIVE_MAX_TOTAL_SIZE: byteSize.default(500 * 1024 * 1024).describe('Largest uncompressed size of a whole connector archive.'),
});

export interface Config {
  http: { host: string; port: number; bodyLimitBytes: number };
  env: 'development' | 'production' | 'test';
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  database:
    | { mode: 'external'; url: string; poolMax: number; statementTimeoutMs: number }
    | { mode: 'embedded'; dataDir: string; port: number; poolMax: number; statementTimeoutMs: number };
  graphql: { graphiql: boolean; introspection: boolean };
  templates: { listMax: number };
  datasets: { listMax: number };
  objectStore:
    | { kind: 'embedded'; dir: string; secret?: string; secretFile: string; maxObjectBytes: number; publicUrl?: string }
    | { kind: 's3'; bucket: string; region: string; endpoint?: string; forcePathStyle: boolean };
  files: { urlExpirySeconds: number; urlLimit: number };
  connectors: { listMax: number; uploadLimitBytes: number; workDir: string; archive: { maxEntries: number; maxEntryBytes: number; maxTotalBytes: number } };
  queryEngine: { statementTimeoutMs: number; maxRows: number; druid?: { url: string; timeoutMs: number } };
  ingestion: { maxBatch: number; bodyLimitBytes: number; kafka?: { brokers: string[]; clientId: string; timeoutMs: number } };
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
  const production = e.NODE_ENV === 'production';
  const pool = { poolMax: e.DB_POOL_MAX, statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS };
  return deepFreeze({
    http: { host: e.HOST, port: e.PORT, bodyLimitBytes: e.REQUEST_BODY_LIMIT },
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    database: e.DATABASE_URL
      ? { mode: 'external', url: e.DATABASE_URL, ...pool }
      : { mode: 'embedded', dataDir: `${e.DATA_DIR}/postgres`, port: e.EMBEDDED_PG_PORT, ...pool },
    graphql: {
      graphiql: e.GRAPHIQL_ENABLED ?? !production,
      introspection: e.GRAPHQL_INTROSPECTION ?? !production,
    },
    templates: { listMax: e.TEMPLATE_LIST_MAX },
    datasets: { listMax: e.DATASET_LIST_MAX },
    objectStore: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          ...(e.S3_ENDPOINT ? { endpoint: e.S3_ENDPOINT } : {}),
          forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
        }
      : {
          kind: 'embedded',
          dir: `${e.DATA_DIR}/objects`,
          secretFile: `${e.DATA_DIR}/object-store.secret`,
          maxObjectBytes: e.OBJECT_MAX_SIZE,
          ...(e.OBJECT_STORE_SECRET ? { secret: e.OBJECT_STORE_SECRET } : {}),
          ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
        },
    files: { urlExpirySeconds: e.FILES_URL_EXPIRY_SECONDS, urlLimit: e.FILES_URL_LIMIT },
    connectors: {
      listMax: e.CONNECTOR_LIST_MAX,
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
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
