// The HTTP server's limits: who may call from a browser, how large and how slow a request may be,
// how long its strings and arrays, and who may read /metrics.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { booleanText, byteSize, list, SECRET } from './values.js';

export const httpVariables = z.object({
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
  FAST_PATH: booleanText
    .default(true)
    .describe(
      'Answer reads the published cache keeps (REST reads and lists of datasets, templates and connectors, and GraphQL queries over them) before the express stack, with the same checks, headers, log line and metrics. false sends every request through express.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('Bearer token GET /metrics requires (Prometheus `authorization` credentials). Unset: /metrics is open; keep it off the public ingress.')
    .meta(SECRET),
});

export type HttpVariables = z.infer<typeof httpVariables>;

/** `downstreamTimeoutsMs`: the longest each outside call a request may wait for may take. */
export function httpSettings(e: HttpVariables & Pick<ServerVariables, 'HOST' | 'PORT'>, downstreamTimeoutsMs: number[]) {
  return {
    host: e.HOST,
    port: e.PORT,
    corsAllowedOrigins: list(e.CORS_ALLOWED_ORIGINS),
    bodyLimitBytes: e.REQUEST_BODY_LIMIT,
    bodyTimeoutMs: e.REQUEST_BODY_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS ?? defaultRequestTimeout(downstreamTimeoutsMs),
    fastPath: e.FAST_PATH,
    ...(e.METRICS_TOKEN ? { metricsToken: e.METRICS_TOKEN } : {}),
  };
}

/** Long enough for the slowest downstream call a request may wait for, and at least 60 s. */
function defaultRequestTimeout(downstreamTimeoutsMs: number[]): number {
  return Math.max(60_000, Math.max(...downstreamTimeoutsMs) + 5_000);
}

/** Lengths of strings, keys and arrays in a JSON body or GraphQL variables (src/validation/json-limits.ts). */
export function jsonLimitSettings(e: HttpVariables) {
  return { maxStringLength: e.JSON_MAX_STRING_LENGTH, maxArrayLength: e.JSON_MAX_ARRAY_LENGTH };
}
