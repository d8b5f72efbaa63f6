// Wraps resolvers with the access check, in the schema every door executes (GraphQL over HTTP, REST
// entries, graphql-ws, SSE): a root field takes the API ids its module declares (and a rate-limit
// token); a link (a field of any other type whose records are of a type with read rights of its
// own, such as Dataset.templates) admits the caller to that type without a token. The links are
// found from the schema, so a link added later is guarded without anyone remembering to.
import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLFieldResolver, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
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

/**
 * The type of record a field's value holds: the type itself, or a connection's item type (its
 * `nodes`, or its `edges`' `node`). A connection's `totalCount` or `groupBy` tells about records as
 * much as its items do, so it needs the items' rights.
 */
export function recordTypeOf(type: GraphQLNamedType): string {
  if (!isObjectType(type)) return type.name;
  const fields = type.getFields();
  if (fields.nodes) return getNamedType(fields.nodes.type).name;
  const edge = fields.edges && getNamedType(fields.edges.type);
  const node = edge && isObjectType(edge) ? edge.getFields().node : undefined;
  return node ? getNamedType(node.type).name : type.name;
}

/**
 * The name `readApiIds` admits a link's value by: a connection's own name when it has read ids of its
 * own (a dataset's connector instances are read as the connector registry is), else its record type.
 */
export function linkReadType(readApiIds: Readonly<Record<string, readonly string[]>>, type: GraphQLNamedType): string {
  return readApiIds[type.name] ? type.name : recordTypeOf(type);
}

/**
 * Guards every link of the schema in place: each field of a non-root type whose records are of a
 * type `readApiIds` names admits the caller to that type (RequestAccess.authorize: no token) before
 * it resolves. Returns the coordinates guarded. Idempotent.
 */
export function guardLinks(schema: GraphQLSchema, readApiIds: Readonly<Record<string, readonly string[]>>): string[] {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean).map((type) => type!.name));
  const guardedLinks: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || roots.has(type.name) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const apiIds = readApiIds[linkReadType(readApiIds, getNamedType(field.type))];
      if (!apiIds) continue;
      const coordinate = `${type.name}.${field.name}`;
      guardedLinks.push(coordinate);
      const resolve = field.resolve ?? defaultFieldResolver;
      if ((resolve as { [GUARDED]?: boolean })[GUARDED]) continue;
      const guarded: GraphQLFieldResolver<unknown, ContextWithAccess> = (source, args, context, info) => {
        if (!context?.access) throw new UnguardedContextError(coordinate);
        context.access.authorize(apiIds);
        return resolve(source, args, context, info);
      };
      Object.defineProperty(guarded, GUARDED, { value: true });
      field.resolve = guarded;
    }
  }
  return guardedLinks;
}
