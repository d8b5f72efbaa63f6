// The GraphQL endpoint: GraphiQL, introspection, the allow list of operations and the limits of one document.
import { z } from 'zod';
import type { ServerVariables } from './server.js';
import { booleanText, list } from './values.js';

export const graphqlVariables = z.object({
  GRAPHIQL_ENABLED: booleanText.optional().describe('Serve GraphiQL at GET /graphql (default: on, except in production).'),
  GRAPHQL_INTROSPECTION: booleanText.optional().describe('Allow schema introspection (default: on, except in production).'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(12).describe('Deepest selection a GraphQL operation may nest.'),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(30).describe('Most aliases one GraphQL document may use.'),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(5000).describe('Most lexical tokens in one GraphQL document (refused while parsing).'),
  GRAPHQL_MAX_COST: z.coerce
    .number()
    .int()
    .min(1)
    .default(50_000)
    .describe(
      'Largest cost of a GraphQL operation: 1 per field, list fields weighted by their page size (`first`), a count (`totalCount`, each `groupBy`) 25 plus the rows it may read (docs/authentication.md "What a count costs").',
    ),
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
  GRAPHQL_COST_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1)
    .default(250)
    .describe(
      'GraphQL cost one rate-limit token buys: a document pays ceil(cost / this) tokens of the caller budget (RATE_LIMIT_BURST), at least 1 (a REST call pays 1). The default makes the costliest document GRAPHQL_MAX_COST allows cost the default burst.',
    ),
  GRAPHQL_FIGURES_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe(
      "How long (ms) a GraphQL answer that reads a dataset's ingestion counts or health (`Dataset.ingestion`, `Dataset.health`) may be kept and served again: such figures move with every ingest call and no change announces them, so they may be this old on a dashboard page that is kept (its other fields are dropped at once on a change). 0: such answers are never kept.",
    ),
  GRAPHQL_MAX_BATCH: z.coerce.number().int().min(1).max(100).default(1).describe('Most operations in one batched GraphQL request (1: batching off).'),
});

export type GraphqlVariables = z.infer<typeof graphqlVariables>;

export function graphqlSettings(e: GraphqlVariables & Pick<ServerVariables, 'NODE_ENV'>) {
  const production = e.NODE_ENV === 'production';
  return {
    graphiql: e.GRAPHIQL_ENABLED ?? !production,
    introspection: e.GRAPHQL_INTROSPECTION ?? !production,
    /** How long an answer selecting ingestion counts or health may be kept (ms; 0: never). */
    figuresMaxAgeMs: e.GRAPHQL_FIGURES_MAX_AGE_MS,
    /** The allow list (`file` unset: persisted-operations.json) and who must keep to it. */
    persistedOperations: {
      ...(e.PERSISTED_OPERATIONS_FILE ? { file: e.PERSISTED_OPERATIONS_FILE } : {}),
      requiredFor: list(e.PERSISTED_OPERATIONS_REQUIRED_FOR),
    },
  };
}

export function graphqlLimitSettings(e: GraphqlVariables) {
  return {
    maxDepth: e.GRAPHQL_MAX_DEPTH,
    maxAliases: e.GRAPHQL_MAX_ALIASES,
    maxTokens: e.GRAPHQL_MAX_TOKENS,
    maxCost: e.GRAPHQL_MAX_COST,
    costPerToken: e.GRAPHQL_COST_PER_TOKEN,
    maxBatch: e.GRAPHQL_MAX_BATCH,
  };
}
