// The audit trail: every Mutation field of the executable schema is wrapped once, at start-up, so
// each state-changing call writes one audit record whichever transport carried it. Apollo and the
// REST layer both execute against this same schema (the REST layer calls graphql `execute`
// directly), so an Apollo plugin would miss REST; the resolvers are the one place both pass.
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors.js';

/** Mutation fields that change no configuration and are deliberately not audited, with why. */
export const UNAUDITED_MUTATIONS: Readonly<Record<string, string>> = {
  ingest: 'data, not configuration: each event already carries its msgid; counted in metrics instead',
};

const AUDITED = Symbol('audited');

/** Keys that name what a call changes, looked up in the arguments first, then in the result. */
const TARGET_KEYS = ['id', 'datasetId', 'destinationId', 'templateId', 'connectorId', 'alertId', 'channelId'] as const;

function idIn(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of TARGET_KEYS) {
    const found = record[key];
    if (typeof found === 'string' && found !== '') return found;
  }
  return undefined;
}

/**
 * The id of what a call changed: named by the caller (`id`, `datasetId`, `input.destinationId`, ...)
 * or, for a create, by the result (`result.id`, `result.template.templateId`, ...).
 */
export function auditTarget(args: Record<string, unknown>, result: unknown): string | null {
  const fromArgs = idIn(args) ?? idIn(args.input);
  if (fromArgs) return fromArgs;
  const fromResult = idIn(result);
  if (fromResult) return fromResult;
  if (result && typeof result === 'object') {
    for (const inner of Object.values(result as Record<string, unknown>)) {
      const nested = Array.isArray(inner) ? idIn(inner[0]) : idIn(inner);
      if (nested) return nested;
    }
  }
  return null;
}

function errorCodeOf(error: unknown): string {
  return error instanceof GatewayError ? error.code : 'INTERNAL_SERVER_ERROR';
}

/** Wraps every audited Mutation field of `schema` in place and returns the schema. Idempotent. */
export function withAuditTrail(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation) return schema;
  for (const field of Object.values(mutation.getFields())) {
    if (field.name in UNAUDITED_MUTATIONS) continue;
    const resolve = (field.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<unknown, GatewayContext> & { [AUDITED]?: true };
    if (resolve[AUDITED]) continue;
    const audited: GraphQLFieldResolver<unknown, GatewayContext> & { [AUDITED]?: true } = (source, args, context, info) =>
      // The change and its record are one transaction (src/platform/database/operation-transaction.ts).
      context.services.audit.recorded(
        {
          requestId: context.requestId,
          actor: context.actor.id,
          transport: context.apiId ? 'rest' : 'graphql',
          apiId: context.apiId ?? null,
          operation: field.name,
        },
        async () => resolve(source, args, context, info),
        {
          target: (result) => auditTarget(args as Record<string, unknown>, result),
          errorCode: errorCodeOf,
          // The change failed either way; a lost record of it is logged, loudly.
          lost: (auditError) => context.logger.error({ err: auditError, operation: field.name }, 'audit record could not be written'),
        },
      );
    audited[AUDITED] = true;
    field.resolve = audited;
  }
  return schema;
}

/** Mutation fields the trail covers (for tests and the docs). */
export function auditedMutations(schema: GraphQLSchema): string[] {
  const fields = schema.getMutationType()?.getFields() ?? {};
  return Object.values(fields)
    .filter((field) => (field.resolve as { [AUDITED]?: true } | undefined)?.[AUDITED])
    .map((field) => field.name);
}
