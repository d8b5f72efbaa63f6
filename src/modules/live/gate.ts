// The checks a subscription passes before it runs, whatever its transport (the HTTP endpoint's
// checks, in the same order): the document's size, validity, depth, aliases and cost; the
// persisted-operation rule for callers bound to it; each root field's permission (which also takes
// a rate-limit token); and the number of subscriptions a connection and a caller may hold.
import { GraphQLError, Kind, OperationTypeNode, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Caller, RequestAccess } from '../../auth/access.js';
import { GatewayError } from '../../errors.js';
import { aliasLimitRule, costRefusal, depthLimitRule, priceOperation, type CostOptions } from '../../graphql/limits.js';
import type { PersistedOperations } from '../../graphql/persisted-operations.js';
import { withTokenLimitNamed } from '../../graphql/errors.js';

export interface SubscriptionRequest {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

export interface PreparedSubscription {
  document: DocumentNode;
  /** The operation the document runs (its name labels the subscription's log lines and metrics). */
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

export interface LiveGateOptions {
  schema: GraphQLSchema;
  apiIdsByField: ReadonlyMap<string, readonly string[]>;
  persisted: PersistedOperations;
  persistedRequired: (caller: Caller | undefined) => boolean;
  limits: { maxTokens: number; maxDepth: number; maxAliases: number; maxCost: number; cost: CostOptions };
  /** Subscriptions one connection may hold at once. */
  maxPerConnection: number;
  /** Subscriptions one caller may hold at once, over every connection of this gateway. */
  maxPerCaller: number;
}

/** A refusal as a GraphQL error with the catalogue's code (and kind) in its extensions, as the HTTP endpoint shows it. */
export function refusal(code: string, message: string, responseCode = 'BAD_REQUEST'): GraphQLError {
  return new GraphQLError(message, { extensions: { code, responseCode } });
}

function fromGatewayError(error: GatewayError): GraphQLError {
  return refusal(error.code, error.message, error.kind);
}

export function callerKey(caller: Caller | undefined): string {
  return caller ? `${caller.via}:${caller.id}` : 'anonymous';
}

/** Subscription texts whose parse and validation are remembered (the oldest forgotten first). */
const CHECKED_DOCUMENTS = 500;

export class LiveGate {
  private readonly perCaller = new Map<string, number>();
  private readonly checked = new Map<string, DocumentNode | GraphQLError[]>();
  private readonly rules;

  constructor(private readonly options: LiveGateOptions) {
    this.rules = [...specifiedRules, depthLimitRule(options.limits.maxDepth), aliasLimitRule(options.limits.maxAliases)];
  }

  /** The operation to run, or the errors that refuse it. */
  async prepare(access: RequestAccess, request: SubscriptionRequest): Promise<PreparedSubscription | GraphQLError[]> {
    const hash = (request.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    let text = request.query;
    if ((text === undefined || text === null || text === '') && typeof hash === 'string') text = this.options.persisted.bodyOf(hash);
    if (typeof text !== 'string' || text.trim() === '') return [refusal('BAD_REQUEST', 'the subscription needs a query (a GraphQL document) or a listed persisted operation id')];
    if (request.operationName !== undefined && request.operationName !== null && typeof request.operationName !== 'string') return [refusal('BAD_REQUEST', 'operationName must be a string')];
    const variables = request.variables ?? {};
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) return [refusal('BAD_REQUEST', 'variables must be an object')];

    const document = this.documentOf(text);
    if (Array.isArray(document)) return document;
    const operations = document.definitions.filter((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION);
    const operationName = request.operationName ?? undefined;
    const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((node) => node.name?.value === operationName);
    if (!operation)
      return [refusal('BAD_REQUEST', operationName === undefined ? 'the document holds several operations: name one (operationName)' : `the document has no operation named ${operationName}`)];
    if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [refusal('BAD_REQUEST', `only subscriptions run on this transport; send ${operation.operation === OperationTypeNode.QUERY ? 'queries' : 'mutations'} to POST /graphql`)];
    }
    const priced = priceOperation(this.options.schema, document, operation, variables as Record<string, unknown>, this.options.limits.cost);
    if (priced.cost > this.options.limits.maxCost) return [refusal('GRAPHQL_VALIDATION_FAILED', costRefusal(priced, this.options.limits.maxCost, false))];
    if (this.options.persistedRequired(access.caller) && !this.options.persisted.includes(typeof hash === 'string' ? hash : undefined, document, operation)) {
      return [
        refusal(
          'PERSISTED_OPERATION_REQUIRED',
          'This caller may run only the operations of the allow list (persisted-operations.json, generated from graphql/operations/): send a listed subscription, or its id as extensions.persistedQuery.sha256Hash. The subscription sent is not on the list.',
          'FORBIDDEN',
        ),
      ];
    }
    try {
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD || selection.name.value === '__typename') continue;
        const apiIds = this.options.apiIdsByField.get(`Subscription.${selection.name.value}`);
        if (!apiIds) return [refusal('BAD_REQUEST', `Subscription.${selection.name.value} is not a subscription field`)];
        // A promise when the rate limit is decided in the shared store (RATE_LIMIT_STORE=postgres).
        await access.admit(apiIds);
      }
    } catch (error) {
      if (error instanceof GatewayError) return [fromGatewayError(error)];
      throw error;
    }
    return { document, operation, operationName, variables: variables as Record<string, unknown> };
  }

  /**
   * The document parsed and validated (its depth and aliases too), or why not. Dashboards open many
   * subscriptions of the same text: each text is checked once (the answer does not depend on the caller).
   */
  private documentOf(text: string): DocumentNode | GraphQLError[] {
    const known = this.checked.get(text);
    if (known) return known;
    let checked: DocumentNode | GraphQLError[];
    try {
      checked = parse(text, { maxTokens: this.options.limits.maxTokens });
      const errors = validate(this.options.schema, checked, this.rules);
      if (errors.length > 0) checked = errors.map((error) => refusal('GRAPHQL_VALIDATION_FAILED', error.message));
    } catch (error) {
      checked = [refusal('GRAPHQL_PARSE_FAILED', withTokenLimitNamed((error as Error).message))];
    }
    if (this.checked.size >= CHECKED_DOCUMENTS) this.checked.delete(this.checked.keys().next().value!);
    this.checked.set(text, checked);
    return checked;
  }

  /** Takes one of the caller's subscriptions; a function giving it back, or the refusal. */
  acquire(caller: Caller | undefined, heldOnConnection: number): (() => void) | GraphQLError {
    if (heldOnConnection >= this.options.maxPerConnection) {
      return refusal('RATE_LIMITED', `this connection holds ${heldOnConnection} subscriptions, the most one may (LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first`, 'TOO_MANY_REQUESTS');
    }
    const key = callerKey(caller);
    const held = this.perCaller.get(key) ?? 0;
    if (held >= this.options.maxPerCaller) {
      return refusal('RATE_LIMITED', `this caller holds ${held} subscriptions on this gateway, the most one may (LIVE_MAX_SUBSCRIPTIONS_PER_CALLER); complete one first`, 'TOO_MANY_REQUESTS');
    }
    this.perCaller.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.perCaller.get(key) ?? 1) - 1;
      if (now <= 0) this.perCaller.delete(key);
      else this.perCaller.set(key, now);
    };
  }
}
