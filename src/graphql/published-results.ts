// Serialise once, serve many, over GraphQL too: the data of a query that reads only published
// records (datasets, templates, connectors and what they are made of, as the modules declare them:
// published-reads.ts) is kept in the published cache (src/platform/cache/published-cache.ts),
// keyed by document, operation and variables, and served without executing again until an
// announced change to one of the tables it is made of drops it. Access is still checked on every
// request, field by field, before a kept answer is served. Queries that read anything else (a
// dataset's metrics, which count events) are executed as usual.
//
// A kept answer is served before Apollo when it can be (keptAnswers): Apollo's pipeline (hashing
// the document, running every plugin's hooks, serialising the data again) cost a cache hit more
// than half of its time. The kept body is the exact text Apollo sends for it.
import type { ApolloServerPlugin } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { RequestAccess } from '../auth/access.js';
import { prepareBody, type PreparedAnswer } from '../platform/cache/prepared-answer.js';
import type { PublishedCache, ReadStart } from '../platform/cache/published-cache.js';
import { currentRequestScope } from '../request-scope.js';
import type { OperationChecks } from './pipeline/operation-checks.js';
import { madeOfAnswer, type ReadPlan, type ReadPlanner } from './published-reads.js';

export interface PublishedResultsOptions {
  cache: PublishedCache;
  /** Which operations may be kept, what they are made of and the API ids of their root fields (the same check the resolvers' guard makes). */
  planOf: ReadPlanner;
  maxEntries: number;
  /** Writes a kept answer: src/http/kept-answer.ts's writeKeptAnswer, the one REST's kept reads use, handed over by src/server.ts. */
  writeAnswer: (method: string | undefined, headers: IncomingHttpHeaders, res: ServerResponse, answer: PreparedAnswer, head: string) => void;
}

export interface KeptAnswer {
  /** The response body, as Apollo writes it (JSON and a newline), prepared with its ETag. */
  answer: PreparedAnswer;
  apiIds: readonly (readonly string[])[];
  /** The API ids of each type of record it reaches through links, checked before it is served. */
  linkedApiIds: readonly (readonly string[])[];
  /** The operation's label in the request metrics (src/http/use-observability.ts). */
  operationLabel: string | undefined;
  /** The document's cost (its `extensions.cost`), which the caller's rate limit charges each time it is served. */
  cost: number | undefined;
}

/** How the answers of one request are keyed: the document's text, the operation chosen and the variables. */
function answerKey(query: string, operationName: unknown, variables: unknown): string {
  return `${query}\u0000${typeof operationName === 'string' ? operationName : ''}\u0000${JSON.stringify(variables ?? {})}`;
}

/** A kept answer is served before Apollo only as JSON; other Accept headers are left to Apollo's negotiation. */
export const isJsonRequest = (headers: IncomingHttpHeaders) => /^application\/json\s*(;|$)/i.test(headers['content-type'] ?? '');
const acceptsPlainJson = (accept: string | undefined) => accept === undefined || accept === '*/*' || accept === 'application/json';

/** The operation a JSON POST body asks for, as Apollo reads it. */
interface GraphQLRequestBody {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

export interface PublishedResults<TContext extends { access: RequestAccess }> {
  /** Keeps the answers Apollo executes, and serves kept ones to requests that reach Apollo. */
  plugin: ApolloServerPlugin<TContext>;
  /**
   * Serves a kept answer before Apollo to a single JSON POST whose caller is admitted to every root
   * field (and not bound to persisted operations); passes every other request on.
   */
  keptAnswers(callerAccess: (req: Request, res: Response) => RequestAccess, checks: OperationChecks): RequestHandler;
  /**
   * The kept answer a JSON POST with this (parsed) body may be served before Apollo, if any: a single
   * operation with its text (no batch, no persisted-query extensions), asking for plain JSON. Used by
   * keptAnswers and by the fast path (src/http/fast-path.ts), which must decide alike. With `req`,
   * a request it looked up is not looked up again: when it is not served, it is executed.
   */
  keptAnswerFor: (body: unknown, headers: IncomingHttpHeaders, req?: IncomingMessage) => KeptAnswer | undefined;
}

export function publishedResults<TContext extends { access: RequestAccess }>(options: PublishedResultsOptions): PublishedResults<TContext> {
  const answers = options.cache.part<KeptAnswer>('GraphQL answers', options.maxEntries);
  /** Requests whose kept answer was looked up: each is looked up once, whichever way it came. */
  const lookedUp = new WeakSet<IncomingMessage>();
  /** Writes a kept answer (the same writer REST's kept reads use). */
  const writeKeptGraphQLAnswer = (req: IncomingMessage, res: ServerResponse, kept: KeptAnswer) => options.writeAnswer(req.method, req.headers, res, kept.answer, '');

  const plugin: ApolloServerPlugin<TContext> = {
    async requestDidStart() {
      let key: string | undefined;
      let plan: ReadPlan | null = null;
      let start: ReadStart | undefined;
      return {
        async didResolveOperation({ document, operation, request }) {
          if (!operation || !options.cache.listening) return;
          plan = options.planOf(document, operation);
          if (plan) start = answers.since(plan.tables);
          // A request that named its document only by hash (and no listed text) is executed, not kept.
          if (plan && request.query !== undefined) key = answerKey(request.query, request.operationName, request.variables);
        },
        async responseForOperation({ contextValue, request, response }) {
          // A request looked up before Apollo and not served there is executed (and its answer kept).
          if (!plan || key === undefined || currentRequestScope()?.keptAnswerLookedUp) return null;
          const kept = answers.get(key);
          if (!kept) return null;
          // The same check each root field's resolver makes; a refusal is left to execution to report.
          try {
            // A filter through a link (a dataset list by its rules' severity) admits as the link would.
            for (const ids of [...plan.linkedApiIds, ...(plan.filtersOf?.(request.variables).apiIds ?? [])]) contextValue.access.authorize(ids);
            await contextValue.access.admitEach(plan.apiIds);
          } catch {
            key = undefined;
            return null;
          }
          key = undefined; // served: nothing to keep afterwards
          return { http: response.http, body: { kind: 'single', singleResult: JSON.parse(kept.answer.bytes.toString()) as { data: Record<string, unknown> } } };
        },
        async willSendResponse({ request, response }) {
          if (!plan || key === undefined || !start) return;
          if (response.body.kind !== 'single' || response.body.singleResult.errors || !response.body.singleResult.data) return;
          // The extensions (the document's cost) are the same for every answer of this key: kept with it.
          const { data, extensions } = response.body.singleResult;
          const body = JSON.stringify(extensions ? { data, extensions } : { data }) + '\n';
          const cost = typeof extensions?.cost === 'number' ? extensions.cost : undefined;
          answers.keep(
            key,
            {
              answer: prepareBody(body),
              apiIds: plan.apiIds,
              linkedApiIds: [...plan.linkedApiIds, ...(plan.filtersOf?.(request.variables).apiIds ?? [])],
              operationLabel: currentRequestScope()?.graphqlOperation,
              cost,
            },
            madeOfAnswer(plan, request.variables),
            start,
          );
        },
      };
    },
  };

  const keptAnswerFor: PublishedResults<TContext>['keptAnswerFor'] = (body, headers, req) => {
    // Only a JSON POST, which no cross-site form can send: a multipart one (an upload, or a form
    // forging a query) goes through Apollo's CSRF prevention. Batches, GET, persisted-query
    // extensions and other media types take Apollo's way too.
    if (!isJsonRequest(headers) || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const { query, operationName, variables, extensions } = body as GraphQLRequestBody;
    if (typeof query !== 'string' || extensions !== undefined || !options.cache.listening || !acceptsPlainJson(headers.accept)) return undefined;
    if (req) lookedUp.add(req);
    return answers.get(answerKey(query, operationName, variables));
  };

  const keptAnswers: PublishedResults<TContext>['keptAnswers'] = (callerAccess, checks) => (req, res, next) => {
    if (req.method !== 'POST') return next();
    // Looked up already (by the fast path, which then did not serve it): executed, not looked up again.
    const kept = lookedUp.has(req) ? undefined : keptAnswerFor(req.body, req.headers, req);
    // Looked up here or before: Apollo's plugin does not look again.
    const scope = lookedUp.has(req) ? currentRequestScope() : undefined;
    if (scope) scope.keptAnswerLookedUp = true;
    if (!kept) return next();
    const serve = () => {
      const scope = currentRequestScope();
      if (scope && kept.operationLabel !== undefined) scope.graphqlOperation = kept.operationLabel;
      writeKeptGraphQLAnswer(req, res, kept);
    };
    // A refusal goes on to Apollo, which executes the operation, and the resolvers' guard reports it.
    let admitted: void | Promise<void>;
    try {
      admitted = checks.admitToKeptAnswer(callerAccess(req, res), kept);
    } catch {
      return next();
    }
    if (admitted) admitted.then(serve, () => next());
    else serve();
  };

  return { plugin, keptAnswers, keptAnswerFor };
}
