// A filter through a link tells of what the link reaches: datasets filtered by the severity of their
// alert rules tell which datasets have critical rules. So a `where` naming such a field (ListField.reads)
// admits the caller as a read of what it reads would, on every field that takes that filter, before it
// resolves: the same rule as guardLinks (guard.ts), applied to arguments. An order by such a field
// (datasets by their failed events) and an `aggregate` of it (their sum) tell as much, and are admitted
// the same way.
import { defaultFieldResolver, getNamedType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema, isObjectType, Kind, type SelectionSetNode } from 'graphql';
import { fieldsNamedBy } from '../platform/lists/comparisons.js';

const GUARDED = Symbol('filter-guarded');
const WHERE = 'Where';
/** The `aggregate` groups whose fields are a list's figures. */
const FIGURE_GROUPS = new Set(['sum', 'avg', 'min', 'max']);

interface ContextWithAccess {
  access?: { authorize(apiIds: readonly string[]): void };
}

type LinkedReads = Readonly<Record<string, { apiIds: readonly string[] }>>;

/** `ingestionFailed` as its order enum spells it: INGESTION_FAILED. */
const enumNameOf = (field: string) => field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The fields an order names (`[{ field: INGESTION_FAILED }]`), as the list declares them. */
function fieldsOrderedBy(orderBy: unknown, reads: LinkedReads): string[] {
  const named = new Set((Array.isArray(orderBy) ? orderBy : [orderBy]).map((key) => (key as { field?: unknown } | null)?.field).filter((field): field is string => typeof field === 'string'));
  return Object.keys(reads).filter((field) => named.has(enumNameOf(field)));
}

/** The figures an `aggregate` selection names under sum, avg, min and max (through fragments). */
function figuresSelected(selections: SelectionSetNode | undefined, info: GraphQLResolveInfo, into = new Set<string>(), depth = 0): Set<string> {
  for (const selection of selections?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      if (depth === 0 && FIGURE_GROUPS.has(selection.name.value)) figuresSelected(selection.selectionSet, info, into, 1);
      else if (depth === 1) into.add(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) figuresSelected(selection.selectionSet, info, into, depth);
    else figuresSelected(info.fragments[selection.name.value]?.selectionSet, info, into, depth);
  }
  return into;
}

/**
 * Wraps each field with an argument of a filter type of `filterApiIds` (`DatasetWhere` → field → API
 * ids) or of its list's order type (`DatasetOrder`), and each field answering its list's aggregate
 * (`DatasetAggregate`): the field resolves only for a caller holding the ids of every linked field its
 * filter, order or figures name. Returns the coordinates guarded. Idempotent.
 */
export function guardLinkedFilters(schema: GraphQLSchema, filterApiIds: Readonly<Record<string, LinkedReads>>): string[] {
  const readsOfList = (typeName: string, suffix: string) => (typeName.endsWith(suffix) ? filterApiIds[`${typeName.slice(0, -suffix.length)}${WHERE}`] : undefined);
  const guarded: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const filters = field.args.flatMap((argument) => {
        const named = getNamedType(argument.type).name;
        const where = filterApiIds[named];
        if (where) return [{ argument: argument.name, reads: where, named: (value: unknown) => [...fieldsNamedBy(value)] }];
        const order = readsOfList(named, 'Order');
        return order ? [{ argument: argument.name, reads: order, named: (value: unknown) => fieldsOrderedBy(value, order) }] : [];
      });
      const figures = readsOfList(getNamedType(field.type).name, 'Aggregate');
      if (filters.length === 0 && !figures) continue;
      guarded.push(`${type.name}.${field.name}`);
      const resolve = field.resolve ?? defaultFieldResolver;
      if ((resolve as { [GUARDED]?: boolean })[GUARDED]) continue;
      const wrapped: GraphQLFieldResolver<unknown, ContextWithAccess> = (source, args: Record<string, unknown>, context, info) => {
        const admit = (reads: LinkedReads, names: Iterable<string>) => {
          for (const name of names) {
            const read = reads[name];
            if (!read) continue;
            if (!context?.access) throw new Error(`${type.name}.${field.name}: a filter through a link resolved without the request's access`);
            context.access.authorize(read.apiIds);
          }
        };
        for (const { argument, reads, named } of filters) admit(reads, named(args[argument]));
        if (figures) for (const node of info.fieldNodes) admit(figures, figuresSelected(node.selectionSet, info));
        return resolve(source, args, context, info);
      };
      Object.defineProperty(wrapped, GUARDED, { value: true });
      field.resolve = wrapped;
    }
  }
  return guarded;
}
