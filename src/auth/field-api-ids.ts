// Gives every GraphQL root field its API ids, so a field is checked exactly as the REST calls that
// run it are. The ids come from the REST table itself (each entry's operations name the root fields
// they run), plus a short list for fields no REST entry runs. A root field that is in neither gets
// an id of its own that no role holds but `*` (fail closed), and is reported at start-up.
import { Kind, parse, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { RestEndpoint } from '../../rest/table.js';

/** Marks a field anyone may call, credentials or not. */
export const PUBLIC_API_ID = 'public';

/** Root fields no REST entry runs, with the API id that guards them. */
export const GRAPHQL_ONLY_FIELDS: Readonly<Record<string, string>> = {
  'Query.version': PUBLIC_API_ID,
  'Mutation._noop': PUBLIC_API_ID,
  // Ingestion counters are figures about a dataset, like the original's dataset metrics.
  'Query.ingestionStats': 'api.dataset.metrics',
  // The audit trail: no group of the default policy names it, so only admin (*) reads it.
  'Query.auditRecords': 'api.audit.read',
};

/** The id a root field that nothing names gets: only a role granted `*` holds it. */
export function unmappedApiId(coordinate: string): string {
  return `graphql.${coordinate}`;
}

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
    const type = definition.operation === 'query' ? 'Query' : definition.operation === 'mutation' ? 'Mutation' : 'Subscription';
    for (const name of rootFieldNames(definition.selectionSet, fragments)) coordinates.push(`${type}.${name}`);
  }
  return coordinates;
}

export interface FieldApiIds {
  /** `Query.dataset` → the API ids of the REST calls that run it (any one of them admits). */
  byField: Map<string, readonly string[]>;
  /** Root fields that got the fail-closed id because nothing names them. */
  unmapped: string[];
}

export function fieldApiIds(schema: GraphQLSchema, endpoints: readonly RestEndpoint[]): FieldApiIds {
  const ids = new Map<string, Set<string>>();
  const add = (coordinate: string, apiId: string) => {
    let set = ids.get(coordinate);
    if (!set) ids.set(coordinate, (set = new Set()));
    set.add(apiId);
  };
  for (const endpoint of endpoints) {
    const sources = typeof endpoint.operation === 'string' ? [endpoint.operation] : Object.values(endpoint.operation);
    for (const source of sources) for (const coordinate of rootFieldsOf(source)) add(coordinate, endpoint.apiId);
  }
  for (const [coordinate, apiId] of Object.entries(GRAPHQL_ONLY_FIELDS)) add(coordinate, apiId);

  const byField = new Map<string, readonly string[]>();
  const unmapped: string[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const name of Object.keys(type.getFields())) {
      const coordinate = `${type.name}.${name}`;
      const found = ids.get(coordinate);
      if (found) {
        // A public field stays public only when nothing else claims it.
        const list = [...found];
        byField.set(coordinate, list.length > 1 ? list.filter((id) => id !== PUBLIC_API_ID) : list);
      } else {
        unmapped.push(coordinate);
        byField.set(coordinate, [unmappedApiId(coordinate)]);
      }
    }
  }
  return { byField, unmapped };
}
