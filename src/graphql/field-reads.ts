// Lists read only the columns they show (DESIGN.md, "Reads at the floor"). The module of each listed
// type declares, for the type's fields (whichever module resolves them), which fields of the record
// their resolvers read (`Dataset.health` reads `datasetId`, `stage` and `status`). A list's resolver
// then asks for the record fields its selection needs, and the page reads those columns only. A
// selected field that declares nothing reads whole rows, so a field added without a declaration is
// never read short.
import { getNamedType, type GraphQLField, type GraphQLObjectType, type GraphQLResolveInfo, type GraphQLSchema, isObjectType, Kind, type SelectionSetNode } from 'graphql';

/** `Type.field` → the fields of the record its resolver reads, named as its Prisma model names them (those are the columns read). */
export type FieldReads = Readonly<Record<string, readonly string[]>>;

const READS = Symbol('record fields read');
type WithReads = GraphQLField<unknown, unknown> & { [READS]?: readonly string[] };

/** Marks each declared field of `schema` with what it reads (once, after the schema is built). */
export function attachFieldReads(schema: GraphQLSchema, reads: FieldReads): void {
  for (const [coordinate, fields] of Object.entries(reads)) {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const type = schema.getType(typeName);
    const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
    if (!field) throw new Error(`field reads: the schema has no field ${coordinate}`);
    (field as WithReads)[READS] = fields;
  }
}

type Selection = SelectionSetNode['selections'][number];

/**
 * The record fields `itemType`'s selections need, from each selected field's declared reads, or
 * undefined when one declares none. `@skip`/`@include` are not evaluated: a field they leave out is
 * still read, never one they keep.
 */
function readsOfItems(itemType: GraphQLObjectType, sets: readonly SelectionSetNode[], info: GraphQLResolveInfo): ReadonlySet<string> | undefined {
  const fields = itemType.getFields();
  const needed = new Set<string>();
  const add = (set: SelectionSetNode): boolean =>
    set.selections.every((selection) => {
      if (selection.kind !== Kind.FIELD) {
        const inner = fragmentSelections(selection, info);
        return inner !== undefined && add(inner);
      }
      if (selection.name.value === '__typename') return true;
      const reads = (fields[selection.name.value] as WithReads | undefined)?.[READS];
      if (reads === undefined) return false;
      for (const field of reads) needed.add(field);
      return true;
    });
  return sets.every(add) ? needed : undefined;
}

function fragmentSelections(selection: Selection, info: GraphQLResolveInfo): SelectionSetNode | undefined {
  if (selection.kind === Kind.INLINE_FRAGMENT) return selection.selectionSet;
  if (selection.kind === Kind.FRAGMENT_SPREAD) return info.fragments[selection.name.value]?.selectionSet;
  return undefined;
}

/** The item selections of a connection's selection: under `nodes` and `edges { node }`; undefined when one cannot be followed. */
function nodeSelections(set: SelectionSetNode, info: GraphQLResolveInfo, underEdges = false): SelectionSetNode[] | undefined {
  const found: SelectionSetNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind !== Kind.FIELD) {
      const inner = fragmentSelections(selection, info);
      const more = inner && nodeSelections(inner, info, underEdges);
      if (!more) return undefined;
      found.push(...more);
      continue;
    }
    const name = selection.name.value;
    if (!selection.selectionSet) continue;
    if (underEdges ? name === 'node' : name === 'nodes') found.push(selection.selectionSet);
    else if (!underEdges && name === 'edges') {
      const more = nodeSelections(selection.selectionSet, info, true);
      if (!more) return undefined;
      found.push(...more);
    }
    // pageInfo, groupBy, aggregate: not made of the page's records
  }
  return found;
}

/** Each field's answer, worked out once per request: the items of a list resolve the same field nodes. */
const readsByFieldNodes = new WeakMap<GraphQLResolveInfo['fieldNodes'], ReadonlySet<string> | undefined>();

function memoized(info: GraphQLResolveInfo, work: () => ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
  if (readsByFieldNodes.has(info.fieldNodes)) return readsByFieldNodes.get(info.fieldNodes);
  const reads = work();
  readsByFieldNodes.set(info.fieldNodes, reads);
  return reads;
}

const selectionSetsOf = (info: GraphQLResolveInfo) => info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));

/** The record fields the nodes of the connection at `info` need (through `nodes` and `edges.node`, fragments included); undefined: whole rows. */
export function nodeFieldReads(info: GraphQLResolveInfo): ReadonlySet<string> | undefined {
  return memoized(info, () => {
    const connection = getNamedType(info.returnType);
    const nodeType = isObjectType(connection) ? getNamedType(connection.getFields().nodes?.type) : undefined;
    if (!isObjectType(nodeType)) return undefined;
    const sets: SelectionSetNode[] = [];
    for (const set of selectionSetsOf(info)) {
      const nodes = nodeSelections(set, info);
      if (!nodes) return undefined;
      sets.push(...nodes);
    }
    return readsOfItems(nodeType, sets, info);
  });
}

/** The record fields the items of the list (or the record) at `info` need; undefined: whole rows. */
export function itemFieldReads(info: GraphQLResolveInfo): ReadonlySet<string> | undefined {
  return memoized(info, () => {
    const itemType = getNamedType(info.returnType);
    return isObjectType(itemType) ? readsOfItems(itemType, selectionSetsOf(info), info) : undefined;
  });
}
