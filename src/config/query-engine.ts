// The query engine templates run on (Druid, or the embedded PostgreSQL when unset), and the templates' own limits.
import { z } from 'zod';

export const queryEngineVariables = z.object({
  DRUID_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Druid router/broker URL. When unset, templates run on the embedded engine (PostgreSQL).'),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000).describe('Longest a template query may run before it is cancelled.'),
  TEMPLATE_QUERY_MAX_ROWS: z.coerce.number().int().min(1).max(100_000).default(5_000).describe('Largest LIMIT a template run may ask for (and the default).'),
  TEMPLATE_LIST_MAX: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Most templates one list call returns.'),
});

export type QueryEngineVariables = z.infer<typeof queryEngineVariables>;

export function queryEngineSettings(e: QueryEngineVariables) {
  return {
    statementTimeoutMs: e.QUERY_TIMEOUT_MS,
    maxRows: e.TEMPLATE_QUERY_MAX_ROWS,
    ...(e.DRUID_URL ? { druid: { url: e.DRUID_URL, timeoutMs: e.QUERY_TIMEOUT_MS } } : {}),
  };
}

export function templateSettings(e: QueryEngineVariables) {
  return { listMax: e.TEMPLATE_LIST_MAX };
}
