// The API ids of every GraphQL root field, declared by each module beside its resolvers
// (src/modules/<domain>/permissions.ts), so a field is never more open than its table says,
// whichever REST entry happens to run it. At start-up the tables are checked against the schema
// (every root field declared) and against the REST table (each entry's API id admits the fields
// its operations run); a gap stops the start-up, naming it.
import { type GraphQLSchema, Kind, OperationTypeNode, parse, type SelectionSetNode } from 'graphql';

/** Marks a field anyone may call, credentials or not. */
export const PUBLIC_API_ID = 'public';

/** `Query.dataset` → the API ids that admit a caller to it (any one of them). */
export type FieldPermissions = Readonly<Record<string, readonly string[]>>;

function rootFieldNames(selectionSet: SelectionSetNode, fragments: Map<string, SelectionSetNode>, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) names.push(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      names.push(...rootFieldNames(selection.selectionSet, fragments, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) names.push(...rootFieldNames(fragment, fragments, seen));
    }
  }
  return names;
}

/** `Query.dataset` → the root fields a GraphQL document runs, by operation type. */
export function rootFieldsOf(source: string): string[] {
  const document = parse(source);
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const coordinates: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const type = definition.operation === OperationTypeNode.QUERY ? 'Query' : definition.operation === OperationTypeNode.MUTATION ? 'Mutation' : 'Subscription';
    for (const name of rootFieldNames(definition.selectionSet, fragments)) coordinates.push(`${type}.${name}`);
  }
  return coordinates;
}

/** What the check reads of a REST table entry (rest/table.ts): its route, API ids and operations. */
export interface RestOperations {
  method: string;
  path: string;
  apiId: string;
  /** One GraphQL document, or several by name. */
  operation: string | Readonly<Record<string, string>>;
  /** The API id a named operation needs instead of `apiId`. */
  operationApiIds?: Readonly<Record<string, string>>;
}

export interface FieldApiIds {
  /** `Query.dataset` → the API ids that admit a caller to it. */
  byField: Map<string, readonly string[]>;
  /** Root fields of the schema that no table declares. */
  undeclared: string[];
  /** REST entries whose API id does not admit a field their operation runs, described. */
  restMismatches: string[];
}

/** The declared API ids of the schema's root fields, and what does not fit the schema or the REST table. */
export function fieldApiIds(schema: GraphQLSchema, permissions: FieldPermissions, endpoints: readonly RestOperations[]): FieldApiIds {
  const byField = new Map<string, readonly string[]>();
  const undeclared: string[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const name of Object.keys(type.getFields())) {
      const coordinate = `${type.name}.${name}`;
      const ids = permissions[coordinate];
      if (ids && ids.length > 0) byField.set(coordinate, ids);
      else undeclared.push(coordinate);
    }
  }
  const restMismatches: string[] = [];
  for (const endpoint of endpoints) {
    const operations = typeof endpoint.operation === 'string' ? { default: endpoint.operation } : endpoint.operation;
    for (const [name, source] of Object.entries(operations)) {
      const apiId = endpoint.operationApiIds?.[name] ?? endpoint.apiId;
      for (const coordinate of rootFieldsOf(source)) {
        const ids = byField.get(coordinate) ?? [];
        if (!ids.includes(apiId) && !ids.includes(PUBLIC_API_ID)) {
          restMismatches.push(`${endpoint.method} ${endpoint.path} (${apiId}${name === 'default' ? '' : `, operation ${name}`}) runs ${coordinate}, which admits ${ids.join(' or ') || 'nothing'}`);
        }
      }
    }
  }
  return { byField, undeclared, restMismatches };
}
