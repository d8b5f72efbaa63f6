// A REST answer speaks the domain's spellings of enum values (Live, sql, warning), GraphQL its enum
// names (LIVE, SQL, WARNING). Each entry's operation is read once, with the schema's types, for the
// places of its result that hold an enum; each answer is then respelled at those places only, from the
// one enum table (src/graphql/enum-values.ts). The request side is the same table read the other way
// (input-shape.ts): the only conversions between the two spellings are these, at the REST edge.
import {
  getNamedType,
  GraphQLEnumType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { ENUMS } from './enum-names.js';

/**
 * An operation's result type as the REST entry is handed it: its enum values respelled, so typed as
 * text (a generated result type names GraphQL's spellings, LIVE; the entry holds the domain's, Live).
 */
export type Respelled<T> = T extends string ? string : T extends Date ? T : T extends readonly (infer U)[] ? Respelled<U>[] : T extends object ? { [K in keyof T]: Respelled<T[K]> } : T;

type EnumTable = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Where a result holds enum values: at a response key, an enum's spellings or the places inside an object (lists are looked through). */
type Place = { enumSpellings: Readonly<Record<string, string>> } | { fields: Map<string, Place> };

/** The places of an operation's result that hold an enum spelled otherwise by the domain; null when it has none. */
export type ResultSpelling = Map<string, Place> | null;

export function resultSpellingOf(schema: GraphQLSchema, document: DocumentNode): ResultSpelling {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return null;
  const places = new Map<string, Place>();
  collect(schema, fragments, operation.selectionSet, root, places);
  return places.size > 0 ? places : null;
}

function collect(schema: GraphQLSchema, fragments: ReadonlyMap<string, FragmentDefinitionNode>, selections: SelectionSetNode, parent: GraphQLNamedType, into: Map<string, Place>): void {
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(selection.name.value);
      const type = fragment && schema.getType(fragment.typeCondition.name.value);
      if (fragment && type) collect(schema, fragments, fragment.selectionSet, type, into);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
      if (type) collect(schema, fragments, selection.selectionSet, type, into);
      continue;
    }
    if (!(parent instanceof GraphQLObjectType || parent instanceof GraphQLInterfaceType)) continue;
    const field = parent.getFields()[selection.name.value];
    if (!field) continue;
    const key = selection.alias?.value ?? selection.name.value;
    const type = getNamedType(field.type);
    if (type instanceof GraphQLEnumType) {
      const spellings = (ENUMS as EnumTable)[type.name];
      // An enum the domain spells as GraphQL does needs nothing.
      if (spellings && Object.entries(spellings).some(([name, value]) => name !== value)) into.set(key, { enumSpellings: spellings });
    } else if (selection.selectionSet) {
      const known = into.get(key);
      const inner = known && 'fields' in known ? known.fields : new Map<string, Place>();
      collect(schema, fragments, selection.selectionSet, type, inner);
      if (inner.size > 0) into.set(key, { fields: inner });
    }
  }
}

/** The result with every enum value at the spelling's places in the domain's spelling; the rest as it was (a copy along those places only). */
export function inDomainSpelling<T>(data: T, spelling: ResultSpelling): T {
  return spelling ? (respell(data, { fields: spelling }) as T) : data;
}

function respell(value: unknown, place: Place): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => respell(item, place));
  if ('enumSpellings' in place) return typeof value === 'string' ? (place.enumSpellings[value] ?? value) : value;
  if (typeof value !== 'object') return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, inner] of place.fields) if (key in copy) copy[key] = respell(copy[key], inner);
  return copy;
}
