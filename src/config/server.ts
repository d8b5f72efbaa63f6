// The process: where it listens, what it runs as, how it logs, where embedded backends keep their data.
import { z } from 'zod';
import { port } from './values.js';

export const serverVariables = z.object({
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
  DATA_DIR: z.string().min(1).default('./.data').describe('Folder for embedded backends (PostgreSQL data lives in DATA_DIR/postgres).'),
});

export type ServerVariables = z.infer<typeof serverVariables>;

export function serverSettings(e: ServerVariables) {
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    /** Unset: chosen at start-up from the terminal (src/main.ts). */
    ...(e.LOG_FORMAT ? { logFormat: e.LOG_FORMAT } : {}),
  };
}

const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost|::ffff:127(\.\d{1,3}){3})$/i;

/** True for addresses only this machine can reach (AUTH_MODE=none is allowed on these alone). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host.trim());
}
