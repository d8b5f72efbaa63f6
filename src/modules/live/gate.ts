// The checks a subscription passes before it runs, whatever its transport (the HTTP endpoint's
// checks, in the same order): the document's size, validity, depth, aliases and cost; the
// persisted-operation rule for callers bound to it; each root field's permission (which also takes
// a rate-limit token); and the number of subscriptions a connection and a caller may hold.
import { GraphQLError, Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionNode } from 'graphql';
import type { Caller, RequestAccess } from '../../auth/access.js';
import { GatewayError } from '../../errors.js';
import { chosenOperation, OperationRefusal, type OperationChecks } from '../../graphql/pipeline/operation-checks.js';
import { CHANGE_STREAM_FIELDS } from './change-logs.js';

const STREAMS: ReadonlySet<string> = new Set(CHANGE_STREAM_FIELDS);

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
  /** The pipeline's checks, the HTTP door's own. */
  checks: OperationChecks;
  apiIdsByField: ReadonlyMap<string, readonly string[]>;
  /** Subscriptions one connection may hold at once. */
  maxPerConnection: number;
  /** Subscriptions one caller may hold at once, over every connection of this gateway. */
  maxPerCaller: number;
}

/** A refusal as a GraphQL error with the catalogue's code (and kind) in its extensions, as the HTTP endpoint shows it. */
export function refusal(code: string, message: string, responseCode = 'BAD_REQUEST'): GraphQLError {
  return new GraphQLError(message, { extensions: { code, responseCode } });
}

function fromRefusal(refused: OperationRefusal): GraphQLError {
  return refusal(refused.code, refused.message, refused.kind);
}

/** The Query fields a live query selects (through fragments too). */
function queryFieldsOf(live: FieldNode, document: DocumentNode): string[] {
  const names = new Set<string>();
  const fragments = new Map(document.definitions.filter((node): node is FragmentDefinitionNode => node.kind === Kind.FRAGMENT_DEFINITION).map((node) => [node.name.value, node]));
  const seen = new Set<string>();
  const visitSelections = (selections: readonly SelectionNode[]) => {
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== '__typename') names.add(selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) visitSelections(selection.selectionSet.selections);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        visitSelections(fragments.get(selection.name.value)?.selectionSet.selections ?? []);
      }
    }
  };
  visitSelections(live.selectionSet?.selections ?? []);
  return [...names];
}

/**
 * The subscription with `after` of each resumable stream it selects (datasetChanges, alertStateChanges,
 * auditStream) set to `cursor`: an SSE client's Last-Event-ID (the last page's endCursor it received),
 * which is later than any `after` its request carried. The same subscription when it selects none.
 */
export function resumedAt(prepared: PreparedSubscription, cursor: string): PreparedSubscription {
  let changed = false;
  const variables = { ...prepared.variables };
  const selections = prepared.operation.selectionSet.selections.map((selection): SelectionNode => {
    if (selection.kind !== Kind.FIELD || !STREAMS.has(selection.name.value)) return selection;
    const after = selection.arguments?.find((argument) => argument.name.value === 'after');
    // Given as a variable: the variable takes the cursor (the document, still using it, stays valid).
    if (after?.value.kind === Kind.VARIABLE) {
      variables[after.value.name.value] = cursor;
      return selection;
    }
    changed = true;
    const others = (selection.arguments ?? []).filter((argument) => argument !== after);
    return { ...selection, arguments: [...others, { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'after' }, value: { kind: Kind.STRING, value: cursor } }] };
  });
  if (!changed) return { ...prepared, variables };
  const operation: OperationDefinitionNode = { ...prepared.operation, selectionSet: { ...prepared.operation.selectionSet, selections } };
  const definitions = prepared.document.definitions.map((definition) => (definition === prepared.operation ? operation : definition));
  return { ...prepared, variables, operation, document: { ...prepared.document, definitions } };
}

export function callerKey(caller: Caller | undefined): string {
  return caller ? `${caller.via}:${caller.id}` : 'anonymous';
}

export class LiveGate {
  private readonly perCaller = new Map<string, number>();

  constructor(private readonly options: LiveGateOptions) {}

  /** The operation to run, or the errors that refuse it. */
  async prepare(access: RequestAccess, request: SubscriptionRequest): Promise<PreparedSubscription | GraphQLError[]> {
    const { checks } = this.options;
    const hash = (request.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    let text = request.query;
    if (text === undefined || text === null || text === '') text = checks.listedText(request.extensions);
    if (typeof text !== 'string' || text.trim() === '') return [refusal('BAD_REQUEST', 'the subscription needs a query (a GraphQL document) or a listed persisted operation id')];
    if (request.operationName !== undefined && request.operationName !== null && typeof request.operationName !== 'string') return [refusal('BAD_REQUEST', 'operationName must be a string')];
    const variables = request.variables ?? {};
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) return [refusal('BAD_REQUEST', 'variables must be an object')];

    const document = checks.documentOf(text);
    if (Array.isArray(document)) return document.map(fromRefusal);
    const operationName = request.operationName ?? undefined;
    const operation = chosenOperation(document, operationName);
    if (operation instanceof OperationRefusal) return [fromRefusal(operation)];
    try {
      checks.check(access, { document, operation, variables: variables as Record<string, unknown>, documentHash: typeof hash === 'string' ? hash : undefined }, 'live');
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD || selection.name.value === '__typename') continue;
        // A live query is admitted as its query twin is: by each Query field it selects.
        const fields = selection.name.value === 'live' ? queryFieldsOf(selection, document).map((name) => `Query.${name}`) : [`Subscription.${selection.name.value}`];
        for (const field of fields) {
          const apiIds = this.options.apiIdsByField.get(field);
          if (!apiIds) return [refusal('BAD_REQUEST', `${field} is not a field one may subscribe to`)];
          // A promise when the rate limit is decided in the shared store (RATE_LIMIT_STORE=postgres).
          await access.admit(apiIds);
        }
      }
    } catch (error) {
      if (error instanceof OperationRefusal) return [fromRefusal(error)];
      if (error instanceof GatewayError) return [refusal(error.code, error.message, error.kind)];
      throw error;
    }
    return { document, operation, operationName, variables: variables as Record<string, unknown> };
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
