// A filter through a link tells of what the link reaches: datasets filtered by the severity of their
// alert rules tell which datasets have critical rules. So a `where` naming such a field (ListField.reads)
// admits the caller as a read of what it reads would, on every field that takes that filter, before it
// resolves: the same rule as guardLinks (guard.ts), applied to arguments.
import { defaultFieldResolver, getNamedType, type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { fieldsNamedBy } from '../platform/lists/comparisons.js';

const GUARDED = Symbol('filter-guarded');

interface ContextWithAccess {
  access?: { authorize(apiIds: readonly string[]): void };
}

/**
 * Wraps each field with an argument of a filter type of `filterApiIds` (`DatasetWhere` → field → API
 * ids): the field resolves only for a caller holding the ids of every linked field its filter names.
 * Returns the coordinates guarded. Idempotent.
 */
export function guardLinkedFilters(schema: GraphQLSchema, filterApiIds: Readonly<Record<string, Readonly<Record<string, { apiIds: readonly string[] }>>>>): string[] {
  const guarded: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const filters = field.args.flatMap((argument) => {
        const reads = filterApiIds[getNamedType(argument.type).name];
        return reads ? [{ argument: argument.name, reads }] : [];
      });
      if (filters.length === 0) continue;
      guarded.push(`${type.name}.${field.name}`);
      const resolve = field.resolve ?? defaultFieldResolver;
      if ((resolve as { [GUARDED]?: boolean })[GUARDED]) continue;
      const wrapped: GraphQLFieldResolver<unknown, ContextWithAccess> = (source, args: Record<string, unknown>, context, info) => {
        for (const { argument, reads } of filters) {
          for (const name of fieldsNamedBy(args[argument])) {
            const read = reads[name];
            if (!read) continue;
            if (!context?.access) throw new Error(`${type.name}.${field.name}: a filter through a link resolved without the request's access`);
            context.access.authorize(read.apiIds);
          }
        }
        return resolve(source, args, context, info);
      };
      Object.defineProperty(wrapped, GUARDED, { value: true });
      field.resolve = wrapped;
    }
  }
  return guarded;
}
