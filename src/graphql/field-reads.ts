// Lists read only the columns they show (DESIGN.md, "Reads at the floor"). Each module declares, for
// the fields it resolves on a listed type, which fields of the record its resolver reads
// (`Dataset.health` reads `datasetId`, `stage` and `status`). A list's resolver then asks for the
// record fields its selection needs, and the page reads those columns only. A selected field that
// declares nothing reads whole rows, so a field added without a declaration is never read short.
import { getNamedType, type GraphQLField, type GraphQLResolveInfo, type GraphQLSchema, isObjectType, Kind, type SelectionSetNode } from 'graphql';

/** `Type.field` → the record fields its resolver reads. */
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

/**
 * The record fields the nodes of the connection at `info` need (through `nodes` and `edges.node`,
 * fragments included), or undefined when a selected node field declares none: whole rows then.
 * `@skip`/`@include` are not evaluated: a field they leave out is still read, never one they keep.
 */
export function nodeFieldReads(info: GraphQLResolveInfo): ReadonlySet<string> | undefined {
  const connection = getNamedType(info.returnType);
  if (!isObjectType(connection)) return undefined;
  const nodeType = getNamedType(connection.getFields().nodes?.type);
  if (!isObjectType(nodeType)) return undefined;
  const nodeFields = nodeType.getFields();
  const needed = new Set<string>();

  const fragmentSelections = (selection: SelectionSetNode['selections'][number]): SelectionSetNode | undefined => {
    if (selection.kind === Kind.INLINE_FRAGMENT) return selection.selectionSet;
    if (selection.kind === Kind.FRAGMENT_SPREAD) return info.fragments[selection.name.value]?.selectionSet;
    return undefined;
  };
  // False when a field declares no reads (the page then reads whole rows).
  const addNodeFields = (set: SelectionSetNode): boolean =>
    set.selections.every((selection) => {
      if (selection.kind !== Kind.FIELD) {
        const inner = fragmentSelections(selection);
        return inner === undefined ? false : addNodeFields(inner);
      }
      const name = selection.name.value;
      if (name === '__typename') return true;
      const reads = (nodeFields[name] as WithReads | undefined)?.[READS];
      if (reads === undefined) return false;
      for (const field of reads) needed.add(field);
      return true;
    });
  const addConnectionFields = (set: SelectionSetNode, underEdges: boolean): boolean =>
    set.selections.every((selection) => {
      if (selection.kind !== Kind.FIELD) {
        const inner = fragmentSelections(selection);
        return inner === undefined ? false : addConnectionFields(inner, underEdges);
      }
      const name = selection.name.value;
      if (!selection.selectionSet) return true;
      if (underEdges) return name === 'node' ? addNodeFields(selection.selectionSet) : true;
      if (name === 'nodes') return addNodeFields(selection.selectionSet);
      if (name === 'edges') return addConnectionFields(selection.selectionSet, true);
      return true; // pageInfo, groupBy, aggregate: not made of the page's records
    });
  for (const node of info.fieldNodes) {
    if (!node.selectionSet || !addConnectionFields(node.selectionSet, false)) return undefined;
  }
  return needed;
}
