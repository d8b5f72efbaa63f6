// Serialise once, serve many, over GraphQL too: the data of a query that reads only published
// records (datasets, templates, connectors and what they are made of) is kept, keyed by document,
// operation and variables, and served without executing again until an announced change to one of
// the tables it read (src/platform/cache/change-feed.ts) drops it. Access is still checked on every
// request, field by field, before a kept answer is served. Queries that read anything else (a
// dataset's metrics, which count events) are executed as usual.
import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, getNamedType, type GraphQLSchema, isCompositeType, Kind, type OperationDefinitionNode, OperationTypeNode, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { RequestAccess } from '../auth/access.js';
import type { FieldPermissions } from '../auth/field-api-ids.js';
import type { ChangeFeed } from '../platform/cache/change-feed.js';

export interface PublishedResultsOptions {
  changes: Pick<ChangeFeed, 'listening' | 'subscribe'>;
  /** Root query fields whose answers may be kept, with the tables they read. */
  rootFields: Readonly<Record<string, readonly string[]>>;
  /** Fields (`Type.field`) that read something else: a query selecting one is never kept. */
  uncacheableFields: ReadonlySet<string>;
  /** API ids of every root field (the same check the resolvers' guard makes). */
  permissions: FieldPermissions;
  maxEntries: number;
}

interface Plan {
  /** The tables the operation reads. */
  tables: string[];
  /** The API ids of each root field it runs, to admit the caller with. */
  apiIds: (readonly string[])[];
}

export function publishedResultsPlugin<TContext extends { access: RequestAccess }>(schema: GraphQLSchema, options: PublishedResultsOptions): ApolloServerPlugin<TContext> {
  const plans = new WeakMap<OperationDefinitionNode, Plan | null>();
  const entries = new Map<string, { data: Record<string, unknown>; tables: string[] }>();
  let epoch = 0;
  const drop = (table?: string) => {
    epoch += 1;
    if (table === undefined) entries.clear();
    else for (const [key, entry] of entries) if (entry.tables.includes(table)) entries.delete(key);
  };
  options.changes.subscribe({ change: (change) => drop(change.table), reset: () => drop() });

  /** Whether an operation may be kept, and what it reads; worked out once per parsed operation. */
  const planFor = (document: DocumentNode, operation: OperationDefinitionNode): Plan | null => {
    const known = plans.get(operation);
    if (known !== undefined) return known;
    let plan: Plan | null = null;
    if (operation.operation === OperationTypeNode.QUERY && operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD)) {
      const tables = new Set<string>();
      const apiIds: (readonly string[])[] = [];
      let cacheable = true;
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD) continue;
        const coordinate = `Query.${selection.name.value}`;
        const read = options.rootFields[coordinate];
        if (!read) cacheable = false;
        else read.forEach((table) => tables.add(table));
        apiIds.push(options.permissions[coordinate] ?? []);
      }
      // Every field the operation (and the fragments it spreads) selects, by its parent type.
      const typeInfo = new TypeInfo(schema);
      visit(
        document,
        visitWithTypeInfo(typeInfo, {
          Field(node) {
            const parent = typeInfo.getParentType();
            if (parent && isCompositeType(getNamedType(parent)) && options.uncacheableFields.has(`${parent.name}.${node.name.value}`)) cacheable = false;
          },
        }),
      );
      if (cacheable) plan = { tables: [...tables], apiIds };
    }
    plans.set(operation, plan);
    return plan;
  };

  return {
    async requestDidStart() {
      let key: string | undefined;
      let plan: Plan | null = null;
      let since = 0;
      return {
        async didResolveOperation({ document, operation, request, queryHash }) {
          if (!operation || !options.changes.listening) return;
          plan = planFor(document, operation);
          since = epoch;
          if (plan) key = `${queryHash}\u0000${request.operationName ?? ''}\u0000${JSON.stringify(request.variables ?? {})}`;
        },
        async responseForOperation({ contextValue, response }) {
          if (!plan || key === undefined) return null;
          const kept = options.changes.listening ? entries.get(key) : undefined;
          if (!kept) return null;
          // The same check each root field's resolver makes; a refusal is left to execution to report.
          try {
            for (const apiIds of plan.apiIds) contextValue.access.admit(apiIds);
          } catch {
            key = undefined;
            return null;
          }
          key = undefined; // served: nothing to keep afterwards
          return { http: response.http, body: { kind: 'single', singleResult: { data: kept.data } } };
        },
        async willSendResponse({ response }) {
          if (!plan || key === undefined || since !== epoch || !options.changes.listening) return;
          if (response.body.kind !== 'single' || response.body.singleResult.errors || !response.body.singleResult.data) return;
          entries.set(key, { data: response.body.singleResult.data, tables: plan.tables });
          if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
        },
      };
    },
  };
}
