// Wraps every root field's resolver with the access check, in the schema both transports execute:
// a GraphQL client and a REST call that runs the same field pass the same check with the same API
// ids. Root fields only: everything else is reachable only through one of them.
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { RequestAccess } from './access.js';

const GUARDED = Symbol('access-guarded');

interface ContextWithAccess {
  access?: RequestAccess;
}

export class UnguardedContextError extends Error {
  constructor(coordinate: string) {
    super(`${coordinate} ran with a context that has no access control (build contexts with createContextFactory)`);
  }
}

/** Guards the schema's root fields in place; returns it for chaining. Idempotent. */
export function guardRootFields(schema: GraphQLSchema, apiIdsByField: ReadonlyMap<string, readonly string[]>): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      if ((resolve as { [GUARDED]?: boolean })[GUARDED]) continue;
      const coordinate = `${type.name}.${field.name}`;
      const apiIds = apiIdsByField.get(coordinate);
      if (!apiIds || apiIds.length === 0) throw new Error(`root field ${coordinate} has no API id`);
      const guarded: GraphQLFieldResolver<unknown, ContextWithAccess> = (source, args, context, info) => {
        // Fail closed: a context without access control is a wiring bug, never a free pass.
        if (!context?.access) throw new UnguardedContextError(coordinate);
        const admitted = context.access.admit(apiIds);
        if (admitted) return admitted.then(() => resolve(source, args, context, info));
        return resolve(source, args, context, info);
      };
      Object.defineProperty(guarded, GUARDED, { value: true });
      field.resolve = guarded;
    }
  }
  return schema;
}
