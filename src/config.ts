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
  DATASET_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most datasets one list call returns.'),
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
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
