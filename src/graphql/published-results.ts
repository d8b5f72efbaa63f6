// Serialise once, serve many, over GraphQL too: the data of a query that reads only published
// records (datasets, templates, connectors and what they are made of) is kept, keyed by document,
// operation and variables, and served without executing again until an announced change to one of
// the tables it read (src/platform/cache/change-feed.ts) drops it. Access is still checked on every
// request, field by field, before a kept answer is served. Queries that read anything else (a
// dataset's metrics, which count events) are executed as usual.
//
// A kept answer is served before Apollo when it can be (keptAnswers): Apollo's pipeline (hashing
// the document, running every plugin's hooks, serialising the data again) cost a cache hit more
// than half of its time. The kept body is the exact text Apollo sends for it.
import type { ApolloServerPlugin } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { type DocumentNode, getNamedType, type GraphQLSchema, isCompositeType, Kind, type OperationDefinitionNode, OperationTypeNode, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { RequestAccess } from '../auth/access.js';
import type { FieldPermissions } from '../auth/field-api-ids.js';
import type { ChangeFeed } from '../platform/cache/change-feed.js';
import { currentRequestScope } from '../request-scope.js';

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

interface KeptAnswer {
  /** The response body, as Apollo writes it (JSON and a newline). */
  body: string;
  tables: readonly string[];
  apiIds: readonly (readonly string[])[];
  /** The operation's label in the request metrics (src/http/use-observability.ts). */
  operationLabel: string | undefined;
}

/** How the answers of one request are keyed: the document's text, the operation chosen and the variables. */
function answerKey(query: string, operationName: unknown, variables: unknown): string {
  return `${query}\u0000${typeof operationName === 'string' ? operationName : ''}\u0000${JSON.stringify(variables ?? {})}`;
}

/** The one media type a kept answer is served as before Apollo; other Accept headers are left to Apollo's negotiation. */
const JSON_MEDIA_TYPE = 'application/json; charset=utf-8';
const isJsonRequest = (req: Request) => /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '');
const acceptsPlainJson = (accept: string | undefined) => accept === undefined || accept === '*/*' || accept === 'application/json';

export interface PublishedResults<TContext extends { access: RequestAccess }> {
  /** Keeps the answers Apollo executes, and serves kept ones to requests that reach Apollo. */
  plugin: ApolloServerPlugin<TContext>;
  /**
   * Serves a kept answer before Apollo to a single JSON POST whose caller is admitted to every root
   * field (and not bound to persisted operations); passes every other request on.
   */
  keptAnswers(callerAccess: (req: Request, res: Response) => RequestAccess, persistedOnly: (caller: RequestAccess['caller']) => boolean): RequestHandler;
}

interface Plan {
  /** The tables the operation reads. */
  tables: string[];
  /** The API ids of each root field it runs, to admit the caller with. */
  apiIds: (readonly string[])[];
}

export function publishedResults<TContext extends { access: RequestAccess }>(schema: GraphQLSchema, options: PublishedResultsOptions): PublishedResults<TContext> {
  const plans = new WeakMap<OperationDefinitionNode, Plan | null>();
  const entries = new Map<string, KeptAnswer>();
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

  const plugin: ApolloServerPlugin<TContext> = {
    async requestDidStart() {
      let key: string | undefined;
      let plan: Plan | null = null;
      let since = 0;
      return {
        async didResolveOperation({ document, operation, request }) {
          if (!operation || !options.changes.listening) return;
          plan = planFor(document, operation);
          since = epoch;
          // A request that named its document only by hash (and no listed text) is executed, not kept.
          if (plan && request.query !== undefined) key = answerKey(request.query, request.operationName, request.variables);
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
          return { http: response.http, body: { kind: 'single', singleResult: JSON.parse(kept.body) as { data: Record<string, unknown> } } };
        },
        async willSendResponse({ response }) {
          if (!plan || key === undefined || since !== epoch || !options.changes.listening) return;
          if (response.body.kind !== 'single' || response.body.singleResult.errors || !response.body.singleResult.data) return;
          // The extensions (the document's cost) are the same for every answer of this key: kept with it.
          const { data, extensions } = response.body.singleResult;
          entries.set(key, {
            body: JSON.stringify(extensions ? { data, extensions } : { data }) + '\n',
            tables: plan.tables,
            apiIds: plan.apiIds,
            operationLabel: currentRequestScope()?.graphqlOperation,
          });
          if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
        },
      };
    },
  };

  const keptAnswers: PublishedResults<TContext>['keptAnswers'] = (callerAccess, persistedOnly) => (req, res, next) => {
    const body = req.body as { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } | undefined;
    // Only a JSON POST, which no cross-site form can send: a multipart one (an upload, or a form
    // forging a query) goes through Apollo's CSRF prevention. Batches, GET, persisted-query
    // extensions and other media types take Apollo's way too.
    if (req.method !== 'POST' || !isJsonRequest(req) || typeof body !== 'object' || body === null || Array.isArray(body) || typeof body.query !== 'string' || body.extensions !== undefined)
      return next();
    if (!options.changes.listening || !acceptsPlainJson(req.headers.accept)) return next();
    const kept = entries.get(answerKey(body.query, body.operationName, body.variables));
    if (!kept) return next();
    const access = callerAccess(req, res);
    if (persistedOnly(access.caller)) return next();
    try {
      for (const apiIds of kept.apiIds) access.admit(apiIds);
    } catch {
      return next(); // Apollo executes it, and the resolvers' guard reports the refusal
    }
    const scope = currentRequestScope();
    if (scope && kept.operationLabel !== undefined) scope.graphqlOperation = kept.operationLabel;
    res.setHeader('content-type', JSON_MEDIA_TYPE);
    res.send(kept.body);
  };

  return { plugin, keptAnswers };
}
